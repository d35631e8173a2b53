"""The offline answer of global search: the most relevant communities as labelled themes.

A theme is a community named by its labels (its most distinctive phrases, communities/labels.py)
and supported by the sentences of its most representative chunks that say one of those phrases and
are closest in meaning to the whole name (embedding cosine; without an embedder, the sentence that
says the most of its labels) — chosen by what they say, not where they stand. A report with no
labels (written before labels existed, or made by hand) is a theme named by its title and
supported by its findings. No sentence supports two themes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from hopgraph.communities.labels import mentions, words
from hopgraph.records.communities import CommunityReport, cite
from hopgraph.text.embed import Embedder
from hopgraph.text.sentences import split_sentences

ChunksOf = Callable[[int], dict[int, str]]  # community id → texts of its most representative chunks
SHOWN_LABELS = 3  # a theme is named by its first three labels
MIN_CHARS, MAX_CHARS = 40, 400  # a supporting sentence: long enough to say something, short enough to quote
_ENDED = re.compile(r"[.!?][\"'”’)\]]*$")


@dataclass
class Theme:
    community_id: int
    name: str  # its labels joined, or the report's title
    sentences: list[tuple[str, list[int]]]  # (sentence, the chunks it cites), best first
    relevance: float  # of its report to the question, 0-10

    @property
    def chunk_ids(self) -> list[int]:
        return list(dict.fromkeys(chunk_id for _, cited in self.sentences for chunk_id in cited))


def name_of(report: CommunityReport) -> str:
    return " · ".join(report.labels[:SHOWN_LABELS]) if report.labels else " ".join(report.title.split())


def quotable(sentence: str) -> bool:
    """A whole sentence of prose: of quotable length, begun with a capital (or digit) and ended with
    its stop — not a piece cut off at a chunk's edge, a heading, a caption in brackets or a line of
    capitals (a table of contents)."""
    first = next((ch for ch in sentence if ch.isalnum()), "")
    letters = [ch for ch in sentence if ch.isalpha()]
    return (MIN_CHARS <= len(sentence) <= MAX_CHARS and (first.isupper() or first.isdigit())
            and sentence[0] not in "[(" and bool(_ENDED.search(sentence))
            and sum(ch.isupper() for ch in letters) <= 0.5 * len(letters))


def candidate_sentences(texts: dict[int, str], labels: Sequence[str]) -> list[tuple[str, int, int]]:
    """(sentence, chunk id, how many labels it says) for the quotable sentences that say one."""
    label_words = [words(label) for label in labels]
    found, seen = [], set()
    for chunk_id in sorted(texts):
        for sentence in split_sentences(texts[chunk_id]):
            if quotable(sentence) and sentence not in seen:
                said = words(sentence)
                hits = sum(mentions(label, said) for label in label_words)
                if hits:
                    seen.add(sentence)  # overlapping chunk windows repeat sentences: keep the first
                    found.append((sentence, chunk_id, hits))
    return found


def supporting(name: str, candidates: list[tuple[str, int, int]], embedder: Embedder | None) -> list[int]:
    """Candidate positions, best first: nearest to the name by cosine, or saying the most labels."""
    if not candidates:
        return []
    if embedder is None:
        score = np.array([hits for _, _, hits in candidates], dtype=float)
    else:
        score = embedder.embed([s for s, _, _ in candidates]) @ embedder.embed_query(name.replace(" · ", ", "))
    return sorted(range(len(candidates)), key=lambda i: (-score[i], candidates[i][1], i))


def theme_of(report: CommunityReport, relevance: float, chunks_of: ChunksOf | None, embedder: Embedder | None,
             per_theme: int, used: set[str]) -> Theme:
    name = name_of(report)
    if not report.labels or chunks_of is None:
        found = [(f"{f.summary} {f.explanation}".strip(), list(f.chunk_ids)) for f in report.findings]
        picked = [(s, cited) for s, cited in found if s not in used][:per_theme]
    else:
        candidates = candidate_sentences(chunks_of(report.community_id), report.labels[:SHOWN_LABELS])
        order = [i for i in supporting(name, candidates, embedder) if candidates[i][0] not in used]
        picked = [(candidates[i][0], [candidates[i][1]]) for i in order[:per_theme]]
    used.update(s for s, _ in picked)
    return Theme(report.community_id, name, picked, relevance)


def themes(ranked: Sequence[tuple[CommunityReport, float]], count: int, per_theme: int,
           chunks_of: ChunksOf | None = None, embedder: Embedder | None = None) -> list[Theme]:
    """The first `count` reports of `ranked` (most relevant first) that yield a supported theme."""
    found: list[Theme] = []
    used: set[str] = set()
    for report, relevance in ranked:
        theme = theme_of(report, relevance, chunks_of, embedder, per_theme, used)
        if theme.sentences:
            found.append(theme)
            if len(found) == count:
                break
    return found


def render(found: Sequence[Theme]) -> str:
    if not found:
        return "No community report holds anything for this question."
    lines = ["Themes (no LLM configured): the communities most relevant to the question, each named by its "
             "most distinctive phrases, with the sentences of its chunks closest to that name."]
    for number, theme in enumerate(found, start=1):
        lines.append(f"{number}. {theme.name}")
        lines += [f"   - {sentence}{cite(cited)}" for sentence, cited in theme.sentences]
    return "\n".join(lines)
