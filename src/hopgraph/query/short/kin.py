"""Parents read from a biography: "Who is the paternal grandfather of Louis III, Count of Blois?".

A biography names its subject's parents in a set form: "son of Guy I, Count of Blois and Margaret of
Valois", "daughter of Borg IV by his wife Meta", "His father was …". The father is named first
(or after "father"), the mother second (or after "mother", "by his wife"). A kinship question is a
walk along those parents: "paternal grandmother" is the father's mother, so the father is read
from the named person's passage, his passage is the hit named so, and the mother is read from it.
A step whose parent or passage is not found ends the walk with no answer, and the other rules try.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hopgraph.query.short.chain import KINSHIP
from hopgraph.query.short.compare import passage_of
from hopgraph.query.short.spans import named_in
from hopgraph.records.answers import ShortAnswer
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import sentence_spans

KIN = "KIN"
# The kinship asked → the parents walked, nearest the named person first: the chain's two-hop kinship
# words, but the in-laws (a spouse is no parent a biography's set form names).
WALKS: dict[str, tuple[str, ...]] = {kin: hops for kin, hops in KINSHIP.items() if "spouse" not in hops}
WALKS.update(father=("father",), mother=("mother",))
_ASKED = re.compile(r"^who\s+(?:is|was)\s+(?:the\s+(?P<kin>(?:paternal |maternal )?(?:grand)?(?:father|mother))\s+of\s+"
                    r".+?|.+?['’]s?\s+(?P<kin2>(?:paternal |maternal )?(?:grand)?(?:father|mother)))"
                    r"\s*\?*\s*$", re.IGNORECASE)
_WORD = r"(?:[A-Z](?:\.|[\w'’-]*)|[IVX]+\b|\d+(?:st|nd|rd|th)\b)"  # "J." is an initial; "Qin." ends a sentence
_PARTICLE = r"(?:of|de|del|della|von|van|der|den|la|le|du|da|di|the|ap|ibn|bin|al|y)"
_NAME = rf"{_WORD}(?:\s+{_PARTICLE}\s+(?:{_PARTICLE}\s+)?{_WORD}|\s+{_WORD})*"  # "George de la Poer Beresford"
# ", Count of Blois", ", 6th Earl of Shaftesbury", ", Prince of Waldeck and Pyrmont": a noble's style
# belongs to the name.
_TITLES = ("Count|Countess|Duke|Duchess|Earl|Baron|Baroness|Marquess|Viscount|Prince|Princess|King|Queen|Lord|"
           "Lady|Margrave|Landgrave|Elector|Baronet")
# A place of one word after "and" ("Waldeck and Pyrmont") is the style's; "Blois and Margaret of
# Valois" is the next parent.
_STYLE = (rf"(?:,\s+(?:\d+(?:st|nd|rd|th)\s+)?(?:{_TITLES})\b(?:\s+of\s+{_NAME}"
          rf"(?:\s+and\s+{_WORD}(?![\w'’-])(?!\s+{_PARTICLE}\s)(?!\s+{_WORD}))?)?)?")
_PARENT = rf"(?P<{{group}}>{_NAME}{_STYLE})"
# "son of military commander Jacob De la Gardie": a few lower-case words may describe the parent first
_CHILD_OF = re.compile(r"\b(?:son|daughter|child|heir)\s+of\s+(?:the\s+)?(?:[a-z]+\s+){0,2}?"
                       + _PARENT.format(group="first")
                       + r"(?:(?:\s*\([^()]*\))?\s*,?\s+(?:and|by)\s+(?:(?:his|her)\s+(?:first\s+|second\s+)?"
                       r"(?:wife|husband|consort)\s*,?\s+)?" + _PARENT.format(group="second") + ")?")
_SAID = {relation: re.compile(rf"\b(?i:his|her)\s+{relation},?\s+(?:was\s+)?(?:the\s+)?"
                              + _PARENT.format(group="name")) for relation in ("father", "mother")}
_FEMALE = frozenset({"Queen", "Princess", "Lady", "Countess", "Duchess", "Baroness", "Empress"})


def kin_answer(question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    """The parent or grandparent a kinship question asks for, or None ("grandfather" alone says
    neither side, so it is left to the other rules)."""
    asked = _ASKED.match(question.strip())
    if asked is None:
        return None
    walk = WALKS.get((asked["kin"] or asked["kin2"]).lower())
    current = next((hit for hit in hits if named_in(question, hit)), None)
    if walk is None or current is None:
        return None
    for step, relation in enumerate(walk):
        found = parent_in(current.text, relation)
        if found is None:
            return None
        name, sentence = found
        if step == len(walk) - 1:
            return ShortAnswer(name, sentence, current.chunk_id, KIN, 1.0)
        current = passage_of(name, [hit for hit in hits if hit is not current])
        if current is None:
            return None
    return None


def parent_in(text: str, relation: str) -> tuple[str, str] | None:
    """The father or the mother a biography names, with the sentence that names them."""
    said = _SAID[relation].search(text)
    if said:
        return said["name"], _sentence_around(text, said.start())
    child_of = _CHILD_OF.search(text)
    if child_of is None:
        return None
    first, second = child_of["first"], child_of["second"] or ""
    if first.split()[0] in _FEMALE and second[:1] and second.split()[0] not in _FEMALE:
        first, second = second, first  # "son of Queen Anne and Prince George": the mother first
    elif not second and first.split()[0] in _FEMALE:
        first, second = "", first  # "daughter of Queen Anne": one parent, the mother
    parent = first if relation == "father" else second  # one parent named alone is the father
    return (parent, _sentence_around(text, child_of.start())) if parent else None


def _sentence_around(text: str, at: int) -> str:
    return next((text[start:end] for start, end in sentence_spans(text) if start <= at < end), text[at:at + 200])
