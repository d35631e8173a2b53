"""The name a passage is about, for documents whose titles say nothing.

The short answer's rules find a passage by its name: the option of "Who was born first, A or B?"
is the hit about A, the first hop of a chain is the hit the question names, and a hit's own
subject is not its answer. A Wikipedia paragraph's title is that name. A user's document is titled
by its file ("doc-00722", "notes.txt"), which its text never says: there the name is the one its
lead sentence defines ("Lowell J. Sherman (1885 – 1934) was an American actor …" names "Lowell J.
Sherman"), read without a parse (`text.nlp.surface_lead`). A title any of whose words the text
says is kept as it is, and a lead that is no name ("The company was founded …") changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from hopgraph.records.retrieval import Hit
from hopgraph.text.nlp import clean_name, looks_like_name, surface_lead

_TITLE_WORD = re.compile(r"[^\W\d_]{2,}")


def named_hits(hits: Sequence[Hit]) -> list[Hit]:
    """`hits`, each titled with the name its passage is about."""
    return [_named(hit) for hit in hits]


def _named(hit: Hit) -> Hit:
    if _title_said(hit.title, hit.text):
        return hit
    lead = clean_name(surface_lead(hit.text))
    return replace(hit, title=lead) if lead and looks_like_name(lead) else hit


def _title_said(title: str, text: str) -> bool:
    lowered = text.lower()
    return any(re.search(rf"\b{re.escape(word.lower())}\b", lowered) for word in _TITLE_WORD.findall(title))
