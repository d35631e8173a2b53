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
from datetime import date
from typing import Any

from hopgraph.linkgraph.names import strip_disambiguation
from hopgraph.query.short.expected import YESNO
from hopgraph.records.answers import ShortAnswer
from hopgraph.records.retrieval import Hit
from hopgraph.text.bm25 import keyword_terms

EARLIER = frozenset(["first", "earlier", "earliest", "older", "oldest", "sooner", "before"])
LATER = frozenset(["later", "last", "latest", "younger", "youngest", "recently", "newer", "recent", "after"])
ROLES = frozenset(["director", "performer", "composer", "author", "producer", "creator", "founder", "father",
                   "mother", "husband", "wife", "writer", "singer", "screenwriter"])
DEATH = frozenset(["died", "death", "dead"])
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_PARENTHESES = re.compile(r"\(([^()]*)\)")
_LIVING = re.compile(r"\(\s*born\b[^()–-]*\)")  # a birth date alone in the lead's parenthesis
_EITHER = re.compile(r"\b(?P<a>[a-z]+) or (?P<b>[a-z]+)\b")
_SAME = re.compile(r"\b(same|both)\b.*\b(nationality|country|countries|citizenship|year|born)\b|"
                   r"\b(same|both)\b.*\b(american|british|english|french|german)\b", re.IGNORECASE)
# "Are both A and B rock bands?", "Were A and B both directors?": the second name and the kind
# asked share the words after "and"; where they part is decided by the passages (both_of_kind).
_BOTH_KIND = re.compile(r"^(?:are|were|is|was)\s+(?P<both>both\s+)?(?P<a>.+?)\s+and\s+(?P<rest>.+?)\s*\?\s*$",
                        re.IGNORECASE)
_KIND_STOP = frozenset(["kind", "type"])  # stems; stopwords are not terms
_COUNTRY_OF = {**dict.fromkeys(("american", "united states", "us", "u s", "america", "usa"), "usa"),
               **dict.fromkeys(("british", "english", "england", "united kingdom", "uk", "u k"), "uk"),
               **dict.fromkeys(("french", "france"), "france")}


def choose_by_date(options: Sequence[str], words: Sequence[str], hits: Sequence[Hit]) -> tuple[str, Hit] | None:
    """The option the question's comparison picks, and the hit that gave its date (or, for "who
    lived longer", its life span)."""
    longer = "lived" in words and "longer" in words
    direction = "later" if longer else _direction(words)
    if direction is None:
        return None
    role = any(word in ROLES for word in words)
    death = any(word in DEATH for word in words)
    dated: list[tuple[int, str, Hit]] = []
    for option in options:
        found = _life_span(option, hits) if longer else _dated_passage(option, hits, role, death)
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
    own = passage_of(option, hits)
    if own is None:
        return None
    candidates = [*_led_to(own, hits), own] if role else [own]
    for hit in candidates:
        year = _year(hit.text, death)
        if year is not None:
            return year, hit
    return None


def _life_span(option: str, hits: Sequence[Hit]) -> tuple[int, Hit] | None:
    own = passage_of(option, hits)
    if own is None:
        return None
    born, died = _year(own.text, death=False), _year(own.text, death=True)
    if died is None and _LIVING.search(own.text[:300]):
        died = date.today().year  # "(born November 25, 1947)": alive, so far longer than one who died at 49
    return (died - born, own) if born is not None and died is not None else None


def passage_of(option: str, hits: Sequence[Hit]) -> Hit | None:
    """The hit about `option`: titled with it (with or without the title's note, "Peter Fleming
    (tennis)"), else opening with it, else named without the option's note ("Made Men" for "Made
    Men (Film)"), else titled with a fuller form of it ("Lowell J. Sherman")."""
    wanted, bare = _norm(option), _norm(strip_disambiguation(option))
    for hit in hits:
        if wanted in (_norm(hit.title), _norm(strip_disambiguation(hit.title))) or _norm(
                hit.text[:len(option) + 4]).startswith(wanted):
            return hit
    for hit in hits:  # "Made Men (Film)": an untitled passage is named without the note
        if bare != wanted and bare == _norm(hit.title):
            return hit
    return next((hit for hit in hits if _fuller(wanted.split(), _norm(strip_disambiguation(hit.title)).split())),
                None)


def _fuller(short: list[str], full: list[str]) -> bool:
    """"Lowell J. Sherman" is a fuller form of "Lowell Sherman": the same first and last word, and
    the short form's words in order within it."""
    if len(short) < 2 or len(full) <= len(short) or short[0] != full[0] or short[-1] != full[-1]:
        return False
    rest = iter(full)
    return all(word in rest for word in short)


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
    """Lower case, no punctuation, no leading "the" (the question may drop it: ", the X or Y")."""
    words = re.sub(r"[^\w\s]", " ", text.lower()).split()
    return " ".join(words[1:] if words[:1] == ["the"] else words)


def same_attribute(question: str, hits: Sequence[Hit], nlp: Any) -> ShortAnswer | None:
    """A yes/no question: "Are A and B from the same country?" compares what the two passages the
    question names say (nationalities and places, or years); "… north or south of …?" takes the
    option the evidence says. Without such evidence there is no short answer (None): "yes", the
    majority answer of yes/no questions, would be a guess, and an invented answer is worse than none."""
    either = _EITHER.search(question)
    if either:
        said = _option_said((either["a"], either["b"]), question, hits)
        if said is not None:
            return ShortAnswer(said[0], said[1].text[:200], said[1].chunk_id, YESNO)
    named = [hit for hit in hits if hit.title and _norm(strip_disambiguation(hit.title)) in _norm(question)][:2]
    if _SAME.search(question) and len(named) == 2:
        first, second = (_attributes(hit, question, nlp) for hit in named)
        if first and second:
            answer = "yes" if first & second else "no"
            return ShortAnswer(answer, named[0].text[:200], named[0].chunk_id, YESNO)
    return both_of_kind(question, hits)


def both_of_kind(question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    """"Are both A and B rock bands?" is "yes" when each one's own passage says, in its opening
    lines, every word of the kind ("band" for "bands"); else no answer. Never "no": a passage that
    opens otherwise ("a buffet chain" for "restaurants") is no evidence against it."""
    asked = _BOTH_KIND.match(question.strip())
    if asked is None or re.search(r"\bsame\b", asked["rest"], re.IGNORECASE):
        return None
    first = passage_of(asked["a"].strip(), hits)
    split = _second_and_kind(asked["rest"].split(), hits, after_both=asked["both"] is None)
    if first is None or split is None or split[0] is first:
        return None
    second, kind = split
    asked_terms = set(keyword_terms(" ".join(kind))) - _KIND_STOP  # stemmed: "bands" is "band"
    if asked_terms and all(asked_terms <= set(keyword_terms(hit.text[:300])) for hit in (first, second)):
        return ShortAnswer("yes", first.text[:200], first.chunk_id, YESNO)
    return None


def _second_and_kind(words: list[str], hits: Sequence[Hit], after_both: bool) -> tuple[Hit, list[str]] | None:
    """The second option's passage and the kind's words: "… and B both KIND" parts at "both";
    "both … and B KIND" at the longest start of the words that titles a hit."""
    if after_both:
        if "both" not in words:
            return None
        at = words.index("both")
        own = passage_of(" ".join(words[:at]), hits)
        return (own, words[at + 1:]) if own is not None else None
    for at in range(len(words) - 1, 0, -1):
        own = passage_of(" ".join(words[:at]), hits)
        if own is not None:
            return own, words[at:]
    return None


def _option_said(options: tuple[str, str], question: str, hits: Sequence[Hit]) -> tuple[str, Hit] | None:
    for hit in hits:
        text = hit.text.lower()
        found = [option for option in options if re.search(rf"\b{re.escape(option.lower())}\b", text)]
        if len(found) == 1:
            return found[0], hit
    return None


def _attributes(hit: Hit, question: str, nlp: Any) -> set[str]:
    """What the passage's lead sentence says that the question compares: its years for a "same
    year" question, else its nationalities and places."""
    lead = hit.text[:300]
    if re.search(r"\byears?\b", question, re.IGNORECASE):
        return set(_YEAR.findall(lead))
    doc = nlp(lead, disable=[name for name in ("tagger", "parser", "attribute_ruler", "lemmatizer")
                             if name in nlp.pipe_names])
    return {_nationality(ent.text) for ent in doc.ents if ent.label_ in ("NORP", "GPE", "LANGUAGE")}


def _nationality(name: str) -> str:
    """"American" and "United States" compare equal; so do "French" and "France", near enough."""
    name = _norm(name)
    return _COUNTRY_OF.get(name, name[:4])
