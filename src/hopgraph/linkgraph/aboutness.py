"""What each chunk is *about*, from its text: names with an aboutness weight, no LLM.

The unit of reading is the paragraph (a chunk holds one or more, or a piece of one): text says
what it is about where a paragraph starts ("X is a 2014 film …"). Per paragraph (hopgraph.text.nlp,
spaCy's small English model): its about-names — the lead subject of a defining first sentence with
its aliases, else the named entity that opens it — and, when `frequent` is on, the named entities it
mentions at least twice. A chunk is about
- the title of its document, when that is a name, at 1.0 (linkgraph/links.py: stated by the author);
- the about-names of every paragraph it holds, at weight ABOUT (subject position, first mention);
- what the paragraph it continues was about, at INHERITED (a long paragraph cut between sentences
  is still about its subject; an earlier chunk named it);
- with `frequent`, each entity a paragraph names twice or more that is not already an about-name,
  at FREQUENT (the weakest evidence: a film paragraph that names its studio twice).
Aliases and short forms are resolved over the whole corpus afterwards (nlp.short_forms).
Paragraph readings are cached by text hash: an unchanged paragraph is never parsed twice.

Only a paragraph's head — its first HEAD_SENTENCES sentences — goes through spaCy: every about-name
comes from the first sentence (its lead, the entity opening it, the places a settlement's definition
names), and parsing whole paragraphs spent most of an index run's time on sentences whose analysis
was thrown away (issue 25: 192 s of 236 s for 1 MB of prose). The sentences after the first are kept
as context, so the parser sees the first sentence as it does in the whole paragraph; the frequent
entities are counted in the head.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hopgraph.text import nlp
from hopgraph.text.sentences import paragraph_spans, sentence_spans

VERSION = f"{nlp.EXTRACTOR_VERSION}/paragraphs-2"  # part of the graph signature and of cached readings
ABOUT = 0.9  # below a title's 1.0: where a titled document and a paragraph both claim a name
INHERITED = 0.5
FREQUENT = 0.25
MIN_FREQUENCY = 2
HEAD_SENTENCES = 3  # the first sentence and two more of context for the parser


@dataclass(frozen=True)
class Reading:
    """One paragraph's names: what it is about (best first), and the entities it names repeatedly."""

    about: tuple[str, ...]
    frequent: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps([list(self.about), list(self.frequent)], ensure_ascii=False)

    @staticmethod
    def from_json(payload: str) -> Reading:
        about, frequent = json.loads(payload)
        return Reading(tuple(about), tuple(frequent))


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def paragraphs(text: str) -> list[str]:
    """A chunk's paragraphs, in order (a heading stays with the paragraph after it)."""
    return [text[a:b] for a, b in paragraph_spans(text)] or [text]


def head(text: str) -> str:
    """The first HEAD_SENTENCES sentences of a paragraph (a prefix of it, so offsets hold)."""
    for count, (_, end) in enumerate(sentence_spans(text), start=1):
        if count == HEAD_SENTENCES:
            return text[:end]
    return text


def read_paragraph(text: str, concepts: Sequence[nlp.Concept]) -> Reading:
    """The about-names (nlp.about_names) and the name-like entities mentioned MIN_FREQUENCY+ times."""
    about = nlp.about_names(text, concepts)
    counts = Counter(nlp.clean_name(c.surface) for c in concepts if c.label in nlp.NAME_LABELS)
    known = set(about)
    frequent = [s for s, n in counts.most_common() if n >= MIN_FREQUENCY and s not in known
                and nlp.looks_like_name(s) and len(s.split()) <= nlp.MAX_LEAD_WORDS]
    return Reading(tuple(about), tuple(frequent))


def read_paragraphs(texts: dict[str, str], cached: dict[str, Reading],
                    progress: Callable[[int, int], None] | None = None) -> dict[str, Reading]:
    """Readings of every text (hash → text) not in `cached`, added to a copy of it."""
    todo = {h: t for h, t in texts.items() if h not in cached}
    readings = dict(cached)
    if todo:
        found = nlp.concepts([head(t) for t in todo.values()], progress=progress)
        readings.update({h: read_paragraph(t, c) for (h, t), c in zip(todo.items(), found, strict=True)})
    return readings


def chunk_paragraphs(texts: Sequence[str]) -> list[list[tuple[str, str]]]:
    """Per chunk, its paragraphs as (hash, text)."""
    return [[(text_hash(p), p) for p in paragraphs(t)] for t in texts]


def chunk_aboutness(parts: Sequence[Sequence[tuple[str, str]]], continues: Sequence[bool],
                    readings: dict[str, Reading], frequent: bool = False) -> list[dict[str, float]]:
    """Per chunk (in document order, `continues` per chunk), surface → aboutness weight."""
    result: list[dict[str, float]] = []
    last: tuple[str, ...] = ()  # the about-names of the previous chunk's last paragraph
    for chunk_parts, continuing in zip(parts, continues, strict=True):
        weights: dict[str, float] = {}
        if continuing:
            for surface in last:
                weights[surface] = INHERITED
        for index, (digest, _) in enumerate(chunk_parts):
            reading = readings.get(digest, Reading(()))
            if index == 0 and continuing and not reading.about:
                continue  # the continued paragraph's names are inherited above
            for surface in reading.about:
                weights[surface] = ABOUT
            if frequent:
                for surface in reading.frequent:
                    weights.setdefault(surface, FREQUENT)
        if chunk_parts:
            own = readings.get(chunk_parts[-1][0], Reading(())).about
            last = own if own or len(chunk_parts) > 1 or not continuing else last
        result.append(weights)
    return result
