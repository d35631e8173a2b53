"""The per-document diversity cap: at most a share of the top k from one document.

A long profile that matches a question's words can fill the top k on its own ("Which town is the
plant of the company that supplies Corvane Brake Systems in?" once got four chunks of Corvane's
profile and not the supply agreement). The cap keeps the first `share × k` hits of each document
(in the retrieval's order) and gives the places of the rest to the ranker's next-best hits from
other documents — but only to a candidate the ranker itself placed within its first `window`: a
question about one long document (a novel is one document) is not pushed into documents that
only a deep ranking reaches. A document the question names, when it names no other, is exempt:
asking about it is asking for its chunks.
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
    in the ranker's own order a replacement may come from, as a multiple of k."""

    share: float
    window: float = 2.0

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
    spare = [h for h in ranked[: cap.depth(top)] if h.chunk_id not in present]
    kept: list[Hit] = []
    seen: Counter[int] = Counter()
    replaced = 0
    for hit in hits:
        seen[hit.doc_id] += 1
        if hit.doc_id == exempt or seen[hit.doc_id] <= limit:
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
