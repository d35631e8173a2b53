"""Candidate answer spans: the hits' sentences most likely to hold the answer, and their entities.

Every sentence of the hits is scored without a model (the question's words it shares, the
relation words the question asks about, whether its passage is a second hop); only the best
`SENTENCES` go through spaCy's entity recogniser, the only model the short answer uses, with the
rest of the pipeline switched off: tagging and parsing every hit cost 100-300 ms a question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import stated_sentences
from hopgraph.text.stop_words import english

MAX_CHARS = 3000  # of each hit's text read: answers sit near the top of a passage; a bound on cost
SENTENCES = 5  # sentences read for entities
ENTITY_ONLY = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
WEIGHTS = {"overlap": 0.6, "cue": 0.8, "second_hop": 1.2, "lead": 0.3, "rank": 0.1}  # tuned on half A
_WORD = re.compile(r"\w+")
# A biography's lead parenthesis, "(October 31, 1887 – April 5, 1975)": the birth, a dash, the death;
# each may be followed by its place, "(6 June 1906, Graz – 2 November 1994, Le Plessis-Bouchard)".
LIFE_SPAN = re.compile(r"\((?P<born>[^()–—]*?\b[12]\d{3}\b[^()–—]*?)\s*(?:[–—]|(?<=\d)-|\s-\s)\s*"
                       r"(?P<died>[^()]*?\b[12]\d{3}\b[^()]*?)\s*\)")
LIFE_CUES = frozenset({"born", "died"})
_DAY_BEFORE = re.compile(r"(?<!\d)[0-3]?\d\s+$")
MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"  # a month's name or its abbreviation
_MONTH_FIRST = re.compile(rf"{MONTH}\s", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    text: str
    rank: int  # its hit's rank (0 = first)
    chunk_id: int
    score: float


@dataclass(frozen=True)
class Span:
    text: str
    label: str  # a spaCy entity label
    sentence: Sentence
    start: int  # the span's first character in its sentence


def content_words(text: str) -> set[str]:
    stop = english()
    return {word for word in _WORD.findall(text.lower()) if word not in stop}


def named_in(question: str, hit: Hit) -> bool:
    """The question names the hit's title: its passage is the first hop, not the answer's."""
    return bool(hit.title) and plain_words(hit.title) in plain_words(question)


def second_hops(question: str, hits: Sequence[Hit]) -> list[bool]:
    """Per hit, whether it is a hop away from the question: reached by a link from another passage,
    or titled with a name that a passage the question names writes."""
    first = [hit for hit in hits if named_in(question, hit) or (hit.via is not None and hit.via.from_chunk < 0)]
    first_ids = {hit.chunk_id for hit in first}
    first_text = plain_words(" ".join(hit.text[:MAX_CHARS] for hit in first))
    return [hit.chunk_id not in first_ids and (
        (hit.via is not None and hit.via.from_chunk >= 0) or
        (bool(hit.title) and f" {plain_words(hit.title)} " in f" {first_text} ")) for hit in hits]


def best_sentences(question: str, hits: Sequence[Hit], cues: frozenset[str], limit: int = SENTENCES) -> list[Sentence]:
    """The `limit` sentences of the hits that share most with the question, best first."""
    asked = content_words(question)
    scale = math.sqrt(len(asked) or 1)
    hops = second_hops(question, hits)
    scored = []
    for rank, hit in enumerate(hits):
        for position, text in enumerate(stated_sentences(hit.text[:MAX_CHARS])):
            words = content_words(text)
            if LIFE_CUES & cues and LIFE_SPAN.search(text):
                words |= LIFE_CUES  # "(October 31, 1887 – April 5, 1975)" says born and died
            score = (WEIGHTS["overlap"] * len(words & asked) / scale + WEIGHTS["cue"] * bool(words & cues)
                     + WEIGHTS["second_hop"] * hops[rank] + WEIGHTS["lead"] * (position == 0)
                     - WEIGHTS["rank"] * rank)
            scored.append(Sentence(text, rank, hit.chunk_id, score))
    return sorted(scored, key=lambda s: -s.score)[:limit]


def entity_spans(sentences: Sequence[Sentence], nlp: Any) -> list[Span]:
    """The named entities of each sentence (spaCy's recogniser alone)."""
    spans = []
    for sentence, doc in zip(sentences, nlp.pipe([s.text for s in sentences], disable=_disabled(nlp)), strict=True):
        spans += [_with_day(Span(ent.text.strip(), ent.label_, sentence, ent.start_char)) for ent in doc.ents]
    return spans


def _with_day(span: Span) -> Span:
    """A date with the day the recogniser left out before it: "(1285 – 2 February 1345)" gives
    "February 1345"; the answer is "2 February 1345"."""
    day = _DAY_BEFORE.search(span.sentence.text[max(0, span.start - 4):span.start])
    if span.label != "DATE" or day is None or not _MONTH_FIRST.match(span.text):
        return span
    start = span.start - len(day.group(0))
    return Span(span.sentence.text[start:span.start] + span.text, span.label, span.sentence, start)


def _disabled(nlp: Any) -> list[str]:
    return [name for name in ENTITY_ONLY if name in nlp.pipe_names]


def plain_words(text: str) -> str:
    """Lower case, punctuation as spaces, one space between words: how names are compared."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
