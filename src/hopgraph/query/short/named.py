"""The name a passage is about, for documents whose titles say nothing.

The short answer's rules find a passage by its name: the option of "Who was born first, A or B?"
is the hit about A, the first hop of a chain is the hit the question names, and a hit's own
subject is not its answer. A Wikipedia paragraph's title is that name. A user's document is titled
by its file ("doc-00722", "notes.txt"), which its text never says: there the name is the one its
lead sentence defines, read without a parse (`text.nlp.about_names`, the names the index links
by). Of those, the form the question writes wins: "Sidney Eddie Mosesian (born 1939), better
known by his stage name Sid Haig, …" is "Sid Haig" for "Who is the oldest, Sid Haig or …?". A
title any of whose words the text says is kept as it is, and a lead that is no name ("The
company was founded …") changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from hopgraph.query.short.spans import plain_words
from hopgraph.records.retrieval import Hit
from hopgraph.text.nlp import about_names

_TITLE_WORD = re.compile(r"[^\W\d_]{2,}")


def named_hits(question: str, hits: Sequence[Hit]) -> list[Hit]:
    """`hits`, each titled with the name its passage is about."""
    asked = f" {plain_words(question)} "
    return [_named(hit, asked) for hit in hits]


def _named(hit: Hit, asked: str) -> Hit:
    if _title_said(hit.title, hit.text):
        return hit
    names = about_names(hit.text, [])
    if not names:
        return hit
    said = [name for name in names if f" {plain_words(name)} " in asked]
    return replace(hit, title=max(said, key=len) if said else names[0])


def _title_said(title: str, text: str) -> bool:
    lowered = text.lower()
    return any(re.search(rf"\b{re.escape(word.lower())}\b", lowered) for word in _TITLE_WORD.findall(title))
