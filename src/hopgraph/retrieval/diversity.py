"""The per-document diversity cap: at most a share of the top k from one document.

A long profile that matches a question's words can fill the top k on its own ("Which town is the
plant of the company that supplies Corvane Brake Systems in?" once got four chunks of Corvane's
profile and not the supply agreement). The cap keeps the first `share × k` hits of each document
(in the retrieval's order) and gives the places of the rest to the ranker's next-best hits from
other documents — but only to a candidate the ranker itself placed within its first `window`: a
question about one long document (a novel is one document) is not pushed into documents that
only a deep ranking reaches. A document the question names, when it names no other, is exempt:
asking about it is asking for its chunks.

Measured, not applied: no retrieval path calls it. bench/diversity.py scores `auto` under every
share × window on both halves of the supplier questions, the docs3 forms and the novels; it gained
on half A only and nowhere on half B, so `auto` runs without it (docs/BENCHMARKS.md, "A per-document
diversity cap").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hopgraph.records.retrieval import Hit


@dataclass(frozen=True)
class DiversityCap:
    """`share`: the most of the top k one document may hold (at least one place); `window`: how deep
    in the ranker's own order a replacement may come from, as a multiple of k; `dominant`: a
    document holding at least this share of the ranker's window is what the question is about
    (a novel's chapters fill the window, a five-chunk profile cannot) and is exempt (None: never)."""

    share: float
    window: float = 2.0
    dominant: float | None = None

    def limit(self, top: int) -> int:
        return max(1, math.floor(self.share * top + 1e-9))

    def depth(self, top: int) -> int:
        return math.ceil(self.window * top)


def exempt_document(named_doc_ids: Iterable[int]) -> int | None:
    """The one document the question names, or None when it names none or several."""
    docs = set(named_doc_ids)
    return docs.pop() if len(docs) == 1 else None


def cap_per_document(hits: Sequence[Hit], ranked: Sequence[Hit], cap: DiversityCap, top: int,
                     exempt: int | None = None) -> tuple[list[Hit], int]:
    """The hits with each document's surplus beyond the cap replaced by the ranker's next-best hits
    (`ranked`, best first) from documents still under it, and how many were replaced. A surplus hit
    stays where no replacement is within the window: a cap that leaves a place empty helps nobody."""
    limit = cap.limit(top)
    held = Counter(h.doc_id for h in hits)
    present = {h.chunk_id for h in hits}
    window = ranked[: cap.depth(top)]
    spare = [h for h in window if h.chunk_id not in present]
    exempt_docs = {exempt} | _dominant(window, cap.dominant)
    kept: list[Hit] = []
    seen: Counter[int] = Counter()
    replaced = 0
    for hit in hits:
        seen[hit.doc_id] += 1
        if hit.doc_id in exempt_docs or seen[hit.doc_id] <= limit:
            kept.append(hit)
            continue
        substitute = next((h for h in spare if held[h.doc_id] < limit and h.doc_id != hit.doc_id), None)
        if substitute is None:
            kept.append(hit)
            continue
        spare.remove(substitute)
        held[substitute.doc_id] += 1
        held[hit.doc_id] -= 1
        kept.append(substitute)
        replaced += 1
    return kept, replaced


def _dominant(window: Sequence[Hit], share: float | None) -> set[int | None]:
    """The documents holding at least `share` of the ranker's window."""
    if share is None or not window:
        return set()
    counts = Counter(h.doc_id for h in window)
    return {doc for doc, n in counts.items() if n >= share * len(window)}
