""""Which of the two" questions, settled by dates: "Who was born first, A or B?", "Which film has the
director who died later, X or Y?".

Each option's passage is the hit titled like it (or opening with its name); when the question asks
about a role ("the director who died later"), the date is read from the passage that option's
passage leads to — the hit linked from it, or a hit whose title it names. The earlier or later
year wins, as the question's words say. No date for either option: no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hopgraph.records.retrieval import Hit

EARLIER = frozenset("first earlier earliest older oldest sooner before".split())
LATER = frozenset("later last latest younger youngest recently newer recent after".split())
ROLES = frozenset("director performer composer author producer creator founder father mother husband wife "
                  "writer singer screenwriter".split())
DEATH = frozenset("died death dead".split())
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_PARENTHESES = re.compile(r"\(([^()]*)\)")


def choose_by_date(options: Sequence[str], words: Sequence[str], hits: Sequence[Hit]) -> tuple[str, Hit] | None:
    """The option the question's comparison picks, and the hit that gave its date."""
    direction = _direction(words)
    if direction is None:
        return None
    role = any(word in ROLES for word in words)
    death = any(word in DEATH for word in words)
    dated: list[tuple[int, str, Hit]] = []
    for option in options:
        found = _dated_passage(option, hits, role, death)
        if found is None:
            return None
        dated.append((found[0], option, found[1]))
    (year_a, option_a, hit_a), (year_b, option_b, hit_b) = dated
    if year_a == year_b:
        return None
    a_wins = (year_a < year_b) == (direction == "earlier")
    return (option_a, hit_a) if a_wins else (option_b, hit_b)


def _direction(words: Sequence[str]) -> str | None:
    for word in words:
        if word in EARLIER:
            return "earlier"
        if word in LATER:
            return "later"
    return None


def _dated_passage(option: str, hits: Sequence[Hit], role: bool, death: bool) -> tuple[int, Hit] | None:
    own = _passage_of(option, hits)
    if own is None:
        return None
    candidates = [*_led_to(own, hits), own] if role else [own]
    for hit in candidates:
        year = _year(hit.text, death)
        if year is not None:
            return year, hit
    return None


def _passage_of(option: str, hits: Sequence[Hit]) -> Hit | None:
    wanted = _norm(option)
    for hit in hits:
        if _norm(hit.title) == wanted or _norm(hit.text[:len(option) + 4]).startswith(wanted):
            return hit
    return None


def _led_to(own: Hit, hits: Sequence[Hit]) -> list[Hit]:
    """The hits `own` leads to: linked from it, or titled with a name its text holds."""
    head = own.text[:600]
    return [hit for hit in hits if hit is not own and (
        (hit.via is not None and hit.via.from_chunk == own.chunk_id) or (hit.title and hit.title in head))]


def _year(text: str, death: bool) -> int | None:
    """A birth (or first) year, or with `death` the year of death: from the first parenthesis
    holding years ("(4 May 1900 – 3 June 1980)"), else the text after "died"/"born"."""
    head = text[:600]
    for inside in _PARENTHESES.findall(head):
        years = _YEAR.findall(inside)
        if years:
            if death:
                return int(years[-1]) if len(years) > 1 else None
            return int(years[0])
    marker = re.search(r"\bdied\b" if death else r"\bborn\b", head)
    if marker:
        after = _YEAR.search(head, marker.end())
        if after:
            return int(after.group())
    if death:
        return None
    first = _YEAR.search(head)
    return int(first.group()) if first else None


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
