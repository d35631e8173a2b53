"""Candidate answer spans in the hits: spaCy's entities and noun chunks, each with its sentence.

One `nlp.pipe` over the hits' texts (the small English model the index already loads for names):
the only model the short answer uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hopgraph.records.retrieval import Hit

MAX_CHARS = 3000  # of each hit's text read: answers sit near the top of a passage; a bound on cost
NOUN_LABEL = "NOUN_CHUNK"


@dataclass(frozen=True)
class Span:
    text: str
    label: str  # a spaCy entity label, or NOUN_CHUNK
    sentence: str
    rank: int  # the hit's rank (0 = first)
    chunk_id: int
    start: int  # the span's first character in its sentence


def candidate_spans(hits: Sequence[Hit], nlp: Any, noun_chunks: bool) -> list[Span]:
    """Every entity (and, when asked, noun chunk) of the hits, in hit order."""
    spans: list[Span] = []
    docs = nlp.pipe([hit.text[:MAX_CHARS] for hit in hits])
    for rank, (hit, doc) in enumerate(zip(hits, docs, strict=True)):
        for ent in doc.ents:
            spans.append(_span(ent, ent.label_, rank, hit.chunk_id))
        if noun_chunks and doc.has_annotation("DEP"):
            for chunk in doc.noun_chunks:
                if chunk.root.pos_ in ("NOUN", "PROPN") and not chunk.root.ent_type_:
                    spans.append(_span(chunk, NOUN_LABEL, rank, hit.chunk_id))
    return spans


def _span(part: Any, label: str, rank: int, chunk_id: int) -> Span:
    sentence = part.sent
    return Span(part.text.strip(), label, sentence.text.strip(), rank, chunk_id,
                part.start_char - sentence.start_char)
