"""The short answer: score the entities of the best sentences against what the question expects.

A candidate must carry the expected label (a "what river" question takes a LOC, never a date) and
must not be a name the question already says (the answer is what the question does not know). It
scores for its sentence (spans.best_sentences), for standing close after a relation word the
question asks about ("born in Dallas", "directed by Y"; a biography's lead "(1887 – 1975)" says
born and died), for saying the kind asked ("Ohio River", "Italy's Lombardy region", a full date for
"which date"), and for recurring across sentences; in "Passaic, New Jersey" the town outscores the
state that holds it, unless the question asks "what state". Under `MIN_SCORE` there is no short
answer: an invented answer is worse than none.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

from hopgraph.query.short.chain import asked_of_bridge, bridge_of
from hopgraph.query.short.cloze import cloze_answer, modifier_answer, object_answer
from hopgraph.query.short.common import shared_answer
from hopgraph.query.short.compare import ROLES, choose_by_date, same_attribute
from hopgraph.query.short.described import described_answer
from hopgraph.query.short.expected import ANY, CHOICE, EXPLAIN, PLACE, YESNO, Expected, expected_answer
from hopgraph.query.short.kin import kin_answer
from hopgraph.query.short.named import named_hits
from hopgraph.query.short.options import choose_by_amount, choose_by_description
from hopgraph.query.short.spans import LIFE_SPAN, MONTH, Span, best_sentences, content_words, entity_spans
from hopgraph.records.answers import ShortAnswer
from hopgraph.records.retrieval import Hit

MIN_SCORE = 1.0  # below it the best candidate is not good enough to state
WEIGHTS = {"label": 1.0, "near_cue": 0.8, "recurs": 0.3, "asked": 1.0, "head": 1.5, "subject": 1.0, "container": 0.5}
# Labels a question that names no kind ("What … overthrew …?") rarely wants: it would ask "when"
# or "how many".
NOT_NAMES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})
MISREAD_PLACES = frozenset({"PERSON"})  # the small model reads many towns as people
CONTAINER_NOUNS = frozenset({"state", "states", "country", "countries", "nation", "province"})
REGIONS = frozenset({"GPE", "LOC"})  # a place that holds another; not a school's building (FAC)
INNER_PLACES = frozenset({"PERSON", "NORP", "ORG"})  # what it reads the town of "Passaic, New Jersey" as
_PLACE_BEFORE = re.compile(r"\b(in|at|from|near)\s+$")
# After "in" or "near" a PERSON label is a misread town ("a plant in Dharwad"); "from" and "at" also
# stand before people ("a letter from Ann"), so they do not count here.
_TOWN_BEFORE = re.compile(r"\b(in|near)\s+$")
# Relation words whose object is never the passage's own subject (born in, married to, graduated from).
ATTRIBUTES = frozenset({"born", "died", "married", "spouse", "graduated", "educated", "studied", "award", "prize"})
_PARENTHESES = re.compile(r"\([^()]*\)")
_YEAR = re.compile(r"\b[12][0-9]{3}\b")
_DAY_AND_MONTH = re.compile(rf"\b{MONTH}\s+\d|\d\s+{MONTH}", re.IGNORECASE)  # "May 17", "17 May"
NEAR = 40  # characters after a relation word within which its object stands
# Question words → the words a passage uses for that relation.
CUES: dict[str, frozenset[str]] = {}
for _asked, _said in (
    ("born birth birthplace", "born birth"),
    ("die died death dead", "died death"),
    ("burial buried grave interred", "buried burial interred grave"),
    ("married spouse husband wife", "married spouse husband wife"),
    ("graduate graduated study studied educated attend attended alma", "graduated educated studied attended"),
    ("award prize awarded won receive received", "award prize won received awarded"),
    ("father mother parent son daughter", "father mother son daughter"),
    ("direct directed director", "directed director"),
    ("located river located situated", "located situated"),
    ("founded founder established formed", "founded founder established formed"),
    ("play plays played", "plays played"),
):
    for _word in _asked.split():
        CUES[_word] = frozenset(_said.split())


def short_answer(question: str, hits: Sequence[Hit], nlp: Any) -> ShortAnswer | None:
    """A span of the hits that answers `question`, or None when none is good enough."""
    if not hits:
        return None
    hits = named_hits(question, hits)
    expected = expected_answer(question)
    if expected.kind == EXPLAIN:
        return None  # a reason or an account is no span: the evidence below says it
    if expected.kind == YESNO:
        return same_attribute(question, hits, nlp)
    if expected.kind == CHOICE:
        chosen = (choose_by_date(expected.options, expected.outside, hits)
                  or choose_by_amount(expected.options, expected.words, hits)
                  or choose_by_description(question, expected.options, hits))
        return ShortAnswer(chosen[0], chosen[1].text[:200], chosen[1].chunk_id, CHOICE, 1.0) if chosen else None
    phrased = _from_phrasing(question, hits, expected, nlp)
    if phrased is not None:
        return phrased
    cues = frozenset().union(*(CUES.get(word, frozenset()) for word in expected.words))
    bridge = bridge_of(question, hits)
    if bridge is not None:
        own = [content_words(_PARENTHESES.sub(" ", bridge.title))]  # the bridge's subject is not the answer
        # the bridge's role is the hop already taken: its words ("directed") no longer point at the answer
        asked = frozenset().union(*(CUES.get(word, frozenset())
                                    for word in asked_of_bridge(question, expected.words))) or cues
        found = _best(entity_spans(best_sentences(question, [bridge], asked), nlp), expected, question, asked, own)
        if found is not None:
            return found
    sentences = best_sentences(question, hits, cues)
    # A chain ("where was the director of … born", "the spouse of the father of …") asks what a
    # passage says of its subject, not the subject: there, the hits' titles are the bridges.
    chained = bool(cues & ATTRIBUTES) and not ROLES.isdisjoint(expected.words)
    subjects = [content_words(_PARENTHESES.sub(" ", hit.title)) for hit in hits] if chained else []
    return _best(entity_spans(sentences, nlp), expected, question, cues, [s for s in subjects if s])


def _from_phrasing(question: str, hits: Sequence[Hit], expected: Expected, nlp: Any) -> ShortAnswer | None:
    """An answer the question's phrasing points at, before any entity is scored: the gap it leaves
    ("… depictions of what?"), the object of "What does X make?", the noun two named things share
    ("… have in common?"), the word before the kind asked ("what type of cable?" → "coaxial cable"),
    the subject of a passage that opens with the question's description ("Which Danish heavy metal band …")."""
    return (kin_answer(question, hits) or cloze_answer(question, hits) or object_answer(question, hits)
            or (shared_answer(question, hits, nlp) if expected.kind == ANY else None)
            or (modifier_answer(question, hits) if expected.kind == ANY else None)
            or (described_answer(question, hits) if expected.labels.isdisjoint(NOT_NAMES) else None))


def _best(spans: Sequence[Span], expected: Expected, question: str, cues: frozenset[str],
          subjects: Sequence[set[str]]) -> ShortAnswer | None:
    asked = content_words(question)
    recurs = Counter(span.text.lower() for span in spans)
    pairs = _place_pairs(spans) if expected.labels & REGIONS else []
    # "born in Passaic, New Jersey": the town, unless the question asks for the state that holds it
    not_asked = {id(inner if expected.head in CONTAINER_NOUNS else outer) for inner, outer in pairs}
    best: tuple[float, Span] | None = None
    for span in spans:
        penalty = WEIGHTS["container"] if id(span) in not_asked else 0.0
        if any(inner is span for inner, _ in pairs):  # "Passaic" (read as NORP) in "Passaic, New Jersey"
            span = replace(span, label=min(expected.labels & REGIONS))
        score = _score(span, expected, asked, cues, recurs[span.text.lower()])
        if score is not None and subjects and _is_subject(span.text, subjects):
            score -= WEIGHTS["subject"]
        if score is not None:
            score -= penalty
        if score is not None and (best is None or score > best[0]):
            best = (score, span)
    if best is None or best[0] < MIN_SCORE:
        return None
    score, span = best
    kind = ",".join(sorted(expected.labels)) or ANY
    text = _year_only(span.text) if expected.head == "year" else _one_date(span, cues)
    return ShortAnswer(_trimmed(text), span.sentence.text, span.sentence.chunk_id, kind, round(score, 3))


def _score(span: Span, expected: Expected, asked: set[str], cues: frozenset[str], recurs: int) -> float | None:
    words = content_words(span.text)
    said = {word for word in words if _said_in(word, asked)} - {expected.head}
    if not words or said == words:
        return None  # the question says it already ("Cuba" in "What Cuban president …")
    label = _label_fit(span, expected)
    if label is None or (expected.head == "year" and not _YEAR.search(span.text)):
        return None  # "what year" is not answered by "seven-year" or "the same year"
    # "Ohio River" for "what river"; not "New York City" for "what New York city": the question says it
    head = bool(expected.head) and not said and bool({expected.head, expected.head.rstrip("s")} & words)
    head = head or (expected.head == "date" and bool(_DAY_AND_MONTH.search(span.text)))  # a date, not a bare year
    head = head or (bool(expected.head) and not said and _followed_by(span, expected.head))  # "Lombardy region"
    return (span.sentence.score + WEIGHTS["label"] * label + WEIGHTS["head"] * head
            + WEIGHTS["near_cue"] * _after_cue(span, cues) + WEIGHTS["recurs"] * math.log(recurs)
            - WEIGHTS["asked"] * len(said) / len(words))


def _place_pairs(spans: Sequence[Span]) -> list[tuple[Span, Span]]:
    """(inner, outer) for a name written right before a place, "born in Passaic, New Jersey": the
    outer place holds the inner one, which is the place a question asks for; the recogniser often
    reads the inner one as a nationality or an organisation."""
    return [(inner, outer) for inner, outer in pairwise(spans)
            if inner.sentence is outer.sentence and outer.label in PLACE and inner.label in PLACE | INNER_PLACES
            and outer.sentence.text[inner.start + len(inner.text):outer.start].strip() == ","]


def _followed_by(span: Span, noun: str) -> bool:
    """The sentence says the kind right after the span: "Italy's Lombardy region" for "what region"."""
    after = span.sentence.text[span.start + len(span.text):span.start + len(span.text) + len(noun) + 2]
    return bool(re.match(rf"\s+{re.escape(noun.rstrip('s'))}s?\b", after, re.IGNORECASE))


def _is_subject(text: str, subjects: Sequence[set[str]]) -> bool:
    words = content_words(text)
    return bool(words) and any(words <= subject or subject <= words for subject in subjects)


def _said_in(word: str, asked: set[str]) -> bool:
    """The question has the word, or one it begins ("Cuba" → "Cuban")."""
    return word in asked or (len(word) >= 4 and any(other.startswith(word) for other in asked))


def _label_fit(span: Span, expected: Expected) -> float | None:
    """1 for the expected label, 0 when any will do; a name the recogniser mislabels ("in Dharwad"
    read as a PERSON) still fits a place question after "in", "at", "from" or "near", by half."""
    if not expected.labels:
        return None if span.label in NOT_NAMES | expected.excluded else 0.0
    if span.label in expected.labels:
        if span.label in MISREAD_PLACES and not expected.labels & PLACE and _TOWN_BEFORE.search(_just_before(span)):
            return None  # "a plant in Dharwad": a town the recogniser read as a person, not a "who"
        return 1.0
    if expected.labels & PLACE and span.label in MISREAD_PLACES and _PLACE_BEFORE.search(_just_before(span)):
        return 0.5
    return None


def _just_before(span: Span) -> str:
    """The few characters before the span, where a preposition ("in", "near") would stand."""
    return span.sentence.text[max(0, span.start - 6):span.start]


def _after_cue(span: Span, cues: frozenset[str]) -> bool:
    """A relation word stands just before the span, in running text: "born May 17, 1965", not the
    "Born" of "Natural Born Killers" (a capital mid-sentence is part of a name)."""
    life = LIFE_SPAN.search(span.sentence.text)
    if life is not None and life.start("born") <= span.start < life.end("born"):
        return "born" in cues
    if life is not None and life.start("died") <= span.start < life.end("died"):
        return "died" in cues
    start = max(0, span.start - NEAR)
    before = span.sentence.text[start:span.start]
    return any(re.search(rf"\b{cue}\b", before) or (start == 0 and before.startswith(cue.capitalize()))
               for cue in cues)


def _year_only(text: str) -> str:
    """"1957" of "September 30, 1957" when the question asks "which year"."""
    year = _YEAR.search(text)
    return year.group() if year else text


def _one_date(span: Span, cues: frozenset[str]) -> str:
    """One end of a date range read as one date, "April 22, 1875 – March 28, 1970": the birth for
    a "born" question, the death for a "died" one; any other span as it is."""
    parts = re.split(r"\s*[–—]\s*", span.text)
    if span.label != "DATE" or len(parts) != 2 or not all(_YEAR.search(part) for part in parts):
        return span.text
    return parts[1] if "died" in cues and "born" not in cues else parts[0]


def _trimmed(text: str) -> str:
    """Without quotes, brackets, dashes or a lower-case "the" ("the Ohio River" → "Ohio River")."""
    text = text.strip(" ,;:\"'“”‘’()–—")
    return text[4:] if text.startswith("the ") else text
