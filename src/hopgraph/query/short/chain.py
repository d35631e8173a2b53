"""The bridge of a chain question: "Where was the director of film Days Of Betrayal born?".

The question names a passage (the film's) and a role ("director"); the answer is in the passage
of whoever fills that role, which the named passage names right after the role's words ("directed
by Otakar Vávra"; the name closest after them wins). That passage is the bridge: the answer's
candidates are read from it alone, and the bridge's own subject is not the answer (it is what the
question does not name but asks about). With no role, no named passage, or no hit titled with a
name that follows the role's words, there is no bridge and the answer is looked for in all the hits.
In a chain of roles ("the spouse of the director of film X") the role nearest the named thing is
the bridge's; a kinship word two hops away ("paternal grandfather") is read as two roles (the
father's passage, asked for its father).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from hopgraph.linkgraph.names import strip_disambiguation
from hopgraph.query.short.spans import named_in
from hopgraph.records.retrieval import Hit

# A role the question asks about → the words a passage puts before whoever fills it.
ROLE_CUES: dict[str, tuple[str, ...]] = {
    "director": ("directed by", "director"),
    "performer": ("performed by", "recorded by", "by", "singer"),
    "singer": ("performed by", "recorded by", "by", "singer"),
    "composer": ("composed by", "music by", "composer"),
    "author": ("written by", "by", "author"),
    "writer": ("written by", "by", "writer"),
    "producer": ("produced by", "producer"),
    "founder": ("founded by", "founder"),
    "creator": ("created by", "creator"),
    "presenter": ("presented by", "hosted by", "host", "presenter"),
    "father": ("son of", "daughter of", "father", "child of"),
    "mother": ("son of", "daughter of", "mother", "child of"),
    "husband": ("married", "husband", "wife of", "spouse"),
    "wife": ("married", "wife", "husband of", "spouse"),
    "spouse": ("married", "wife", "husband", "spouse"),
}
# Kinship two hops away → (the bridge's role, the relation asked of the bridge's passage).
KINSHIP: dict[str, tuple[str, str]] = {
    "paternal grandfather": ("father", "father"), "paternal grandmother": ("father", "mother"),
    "maternal grandfather": ("mother", "father"), "maternal grandmother": ("mother", "mother"),
    "father-in-law": ("spouse", "father"), "mother-in-law": ("spouse", "mother"),
}
CUE_REACH = 60  # characters between the role's words and the name that fills the role


def bridge_of(question: str, hits: Sequence[Hit]) -> Hit | None:
    """The passage of whoever fills the role the question asks about, or None."""
    role = bridge_role(question)
    named = [hit for hit in hits if named_in(question, hit) or named_in(question, _bare(hit))]
    if role is None or not named:
        return None
    subject = named[0]
    gaps = [(gap, rank) for rank, hit in enumerate(hits) if hit not in named
            and (gap := _gap_after_cue(_bare(hit).title, subject.text, ROLE_CUES[role])) is not None]
    return hits[min(gaps)[1]] if gaps else None


def bridge_role(question: str) -> str | None:
    """The role the bridge fills: in "the spouse of the director of film X" the one nearest the named
    thing (the director) is the first hop; the spouse is what the bridge's passage is asked. A
    two-hop kinship word names both: a paternal grandfather is the father's father."""
    kin = _kinship(question)
    if kin is not None:
        return KINSHIP[kin][0]
    words = re.findall(r"[a-z]+", question.lower())
    return next((word for word in reversed(words) if word in ROLE_CUES), None)


def asked_of_bridge(question: str, words: Sequence[str]) -> list[str]:
    """The question's words that say what the bridge's passage is asked: all but the bridge's role,
    or the second relation of a kinship word ("father" of "paternal grandfather")."""
    kin = _kinship(question)
    if kin is not None:
        return [KINSHIP[kin][1]]
    role = bridge_role(question)
    return [word for word in words if word != role]


def _kinship(question: str) -> str | None:
    lowered = question.lower()
    return next((kin for kin in KINSHIP if kin in lowered), None)


def _gap_after_cue(name: str, text: str, cues: Sequence[str]) -> int | None:
    """How few characters stand between a role's words and the name in the text ("directed by Wolf
    Gremm and starring Eddi Arent": 1 for Gremm, 25 for Arent), or None beyond `CUE_REACH`."""
    if len(name) < 3:
        return None
    lowered = text.lower()
    gaps = []
    for found in re.finditer(re.escape(name.lower()), lowered):
        before = lowered[max(0, found.start() - CUE_REACH):found.start()]
        gaps += [len(before) - match.end() for cue in cues for match in re.finditer(rf"\b{re.escape(cue)}\b", before)]
    return min(gaps) if gaps else None


def _bare(hit: Hit) -> Hit:
    """The hit titled without its note ("Border (2018 Film)" → "Border")."""
    return replace(hit, title=strip_disambiguation(hit.title))
