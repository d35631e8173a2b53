"""Every stage of one retrieval, side by side: what the web inspector shows for a question.

It explains a `Retrieval` that was already made (by `HopGraph.search` or `ask`), so the final top k
it shows is the one search returned, never a second opinion. What the hits do not carry — each
ranker's own list, the fusion, every name the question says — is recomputed with the stage
functions the methods use (stages.py, `rankers.hybrid`): deterministic, and cheap next to
the search itself (one more question embedding and BM25 pass).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from hopgraph.records.retrieval import Budget, Hit, Retrieval
from hopgraph.retrieval import stages
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.rankers import RankRequest, StageTimer, hybrid
from hopgraph.retrieval.router import Route

SHOWN = 10  # rows of each ranker's list and of the fusion shown (the fusion itself looks `candidates` deep)


@dataclass(frozen=True)
class Ranked:
    """One row of a ranker's list or of the fusion; `ranks` are the fused row's rank by each ranker."""

    rank: int
    chunk: int
    title: str
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    placed: int | None = None  # its rank in the final top k, if it got there


@dataclass(frozen=True)
class NameFound:
    """A name the question says, the chunks most about it, and whether the names stage placed one."""

    name: str
    chunks: list[dict[str, Any]]
    placed: bool


@dataclass(frozen=True)
class Step:
    """A hit placed by following the graph: a link (from → to via a name) or the PPR walk (the seed
    that sent it most of its mass, through which name)."""

    rank: int
    from_chunk: int
    from_title: str
    to_chunk: int
    to_title: str
    name: str
    score: float


@dataclass
class Inspection:
    question: str
    method: str  # what ran, e.g. `auto:hybrid+names+links+ppr`
    route: dict[str, Any]
    vector: list[Ranked]
    bm25: list[Ranked]
    fusion: list[Ranked]
    fusion_detail: str
    names: list[NameFound]
    links: list[Step]
    ppr: list[Step]
    ppr_detail: str
    timings: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def inspect_retrieval(index: SearchIndex, question: str, retrieval: Retrieval, budget: Budget, rrf_k: int,
                      route: Route, routed: bool) -> Inspection:
    """The stages behind `retrieval` (made for `question` under `budget`); `route` is the router's
    decision, `routed` whether the method was `auto` (so the decision was used, not only shown)."""
    placed = {hit.chunk_id: rank for rank, hit in enumerate(retrieval.hits, start=1)}
    question_vector = index.embedder.embed_query(question)
    cosine = stages.vector_scores(index, question_vector, budget.candidates)
    keyword = stages.bm25_scores(index, question)
    fusion = hybrid(index, question, RankRequest(budget, rrf_k, StageTimer()))
    fused, ranks = fusion.scores, fusion.ranks
    return Inspection(
        question=question, method=retrieval.method,
        route={"kind": route.kind, "method": route.method, "reason": route.reason, "decided_by": route.decided_by,
               "signals": route.signals, "used": routed},
        vector=_ranked(index, cosine, stages.ranked_rows(cosine, SHOWN), placed),
        bm25=_ranked(index, keyword, stages.ranked_rows(keyword, SHOWN), placed),
        fusion=_ranked(index, fused, stages.top_rows(fused, SHOWN), placed, ranks),
        fusion_detail=f"reciprocal rank fusion, k={rrf_k}, each ranker {budget.candidates} deep",
        names=_names(index, question, retrieval.hits),
        links=_steps(retrieval.hits, "link"), ppr=_steps(retrieval.hits, "ppr"),
        ppr_detail=next((step.detail for step in retrieval.trace if step.stage == "ppr"), ""),
        timings=[{"stage": s.stage, "ms": round(s.ms, 3), "detail": s.detail} for s in retrieval.trace])


def _ranked(index: SearchIndex, scores: np.ndarray, rows: np.ndarray, placed: dict[int, int],
            ranks: dict[str, dict[int, int]] | None = None) -> list[Ranked]:
    out = []
    for rank, row in enumerate(rows.tolist(), start=1):
        chunk = int(index.table.ids[row])
        by_ranker = {name: r[row] for name, r in (ranks or {}).items() if row in r}
        out.append(Ranked(rank, chunk, index.title_of_row(row), round(float(scores[row]), 6), by_ranker,
                          placed.get(chunk)))
    return out


def _names(index: SearchIndex, question: str, hits: list[Hit]) -> list[NameFound]:
    """Every name the question says (the names stage's own finder), in the order it found them."""
    rows_of: dict[str, list[int]] = {}
    for row, surface in stages.names_in_question(index, question):
        rows_of.setdefault(surface, []).append(row)
    by_name = {hit.via.name for hit in hits if hit.found_by == "name" and hit.via is not None}
    return [NameFound(surface, [{"chunk": int(index.table.ids[row]), "title": index.title_of_row(row)}
                                for row in dict.fromkeys(rows)], surface in by_name)
            for surface, rows in rows_of.items()]


def _steps(hits: list[Hit], found_by: str) -> list[Step]:
    return [Step(rank, hit.via.from_chunk, hit.via.from_title, hit.chunk_id, hit.title, hit.via.name,
                 round(hit.stage_score if hit.stage_score is not None else hit.score, 6))
            for rank, hit in enumerate(hits, start=1) if hit.found_by == found_by and hit.via is not None]
