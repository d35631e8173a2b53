"""The short answer: score every candidate span of the hits against what the question expects.

A candidate must carry the expected label (a "what river" question takes a LOC, never a date) and
must not be a name the question already says (the answer is what the question does not know). It
scores for the question words its sentence shares, for being said in a passage the question does
not name (the second hop of a bridge question holds the answer), for recurring across hits, and
loses for a low hit rank. Under `MIN_SCORE`, there is no short answer.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hopgraph.query.short.compare import choose_by_date
from hopgraph.query.short.expected import ANY, CHOICE, YESNO, Expected, expected_answer
from hopgraph.query.short.spans import NOUN_LABEL, Span, candidate_spans
from hopgraph.records.retrieval import Hit
from hopgraph.text.stop_words import english

MIN_SCORE = 1.0  # below it the best candidate is not good enough to state
WEIGHTS = {"label": 1.0, "overlap": 1.0, "other_passage": 0.6, "rank": 0.25, "recurs": 0.4, "noun_chunk": -0.6}
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ShortAnswer:
    text: str
    sentence: str  # the sentence that holds it ("" for yes/no)
    chunk_id: int | None
    kind: str  # the kind of answer the question wanted: a label set, YESNO or CHOICE
    score: float


def short_answer(question: str, hits: Sequence[Hit], nlp: Any) -> ShortAnswer | None:
    """A span of the hits that answers `question`, or None when none is good enough."""
    if not hits:
        return None
    expected = expected_answer(question)
    if expected.kind == YESNO:
        return ShortAnswer("yes", "", None, YESNO, 0.0)  # the majority answer; see BENCHMARKS
    if expected.kind == CHOICE:
        chosen = choose_by_date(expected.options, expected.words, hits)
        return ShortAnswer(chosen[0], "", chosen[1].chunk_id, CHOICE, 1.0) if chosen else None
    spans = candidate_spans(hits, nlp, noun_chunks=expected.kind == ANY)
    return _best(spans, expected, question, hits)


def _best(spans: Sequence[Span], expected: Expected, question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    asked = _content_words(question)
    named_in_question = [_named(hit.title, question) for hit in hits]
    recurs: dict[str, int] = defaultdict(int)
    for span in spans:
        recurs[span.text.lower()] += 1
    best: tuple[float, Span] | None = None
    for span in spans:
        score = _score(span, expected, asked, named_in_question[span.rank], recurs[span.text.lower()])
        if score is not None and (best is None or score > best[0]):
            best = (score, span)
    if best is None or best[0] < MIN_SCORE:
        return None
    score, span = best
    kind = ",".join(sorted(expected.labels)) or ANY
    return ShortAnswer(span.text, span.sentence, span.chunk_id, kind, round(score, 3))


def _score(span: Span, expected: Expected, asked: set[str], hit_named: bool, recurs: int) -> float | None:
    words = _content_words(span.text)
    if not words or words <= asked:
        return None  # the question says it already
    if expected.labels and span.label not in expected.labels:
        return None
    sentence_words = _content_words(span.sentence) - words
    overlap = len(sentence_words & asked) / math.sqrt(len(asked) or 1)
    return (WEIGHTS["label"] * bool(expected.labels) + WEIGHTS["overlap"] * overlap
            + WEIGHTS["other_passage"] * (not hit_named) - WEIGHTS["rank"] * span.rank
            + WEIGHTS["recurs"] * math.log(recurs) + WEIGHTS["noun_chunk"] * (span.label == NOUN_LABEL)
            - len(words & asked) / len(words))


def _named(title: str, question: str) -> bool:
    return bool(title) and title.lower() in question.lower()


def _content_words(text: str) -> set[str]:
    stop = english()
    return {word for word in _WORD.findall(text.lower()) if word not in stop}
