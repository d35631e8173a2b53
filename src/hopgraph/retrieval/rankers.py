"""Rankers: what scores every chunk row for a question, by name — the one registry of them.

A retrieval method is a ranker followed by optional stages (`hybrid+names+links`, retrieval/methods.py).
Method parsing, the `--method` help, the HTTP description of `method` and the errors that list the
known rankers all read this registry, so adding a ranker is one module with a scoring function and
one `register(...)` call (a plugin calls it from its entry point: hopgraph/plugins.py).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from hopgraph.errors import HopgraphError, InputError
from hopgraph.records.retrieval import Budget, TraceStep
from hopgraph.retrieval import stages
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.sparse_scores import SparseScores

Ranks = dict[str, dict[int, int]]  # for a fusion: each fused ranker's row → rank (a hit's `ranks`)
EXPANSIONS = ("names", "links", "ppr")  # the stages a method may add after its ranker (methods.py)
ALIASES = {"ppr": "hybrid+names+ppr"}  # method names that stand for a composition


class StageTimer:
    """Collects one TraceStep per timed stage."""

    def __init__(self) -> None:
        self.steps: list[TraceStep] = []
        self._last = time.perf_counter()

    def step(self, stage: str, detail: str = "") -> None:
        now = time.perf_counter()
        self.steps.append(TraceStep(stage, (now - self._last) * 1000, detail))
        self._last = now


@dataclass
class Ranking:
    """One score per chunk row (higher is better) and, for a fusion, each fused ranker's ranks."""

    scores: stages.Scores
    ranks: Ranks = field(default_factory=dict)


@dataclass(frozen=True)
class RankRequest:
    """What a ranker may use besides the index and the question: the budget (its `candidates` is how
    deep a fusion looks), the reciprocal-rank-fusion constant, the timer its steps go to, and how
    much a keyword rank counts in a fusion against a vector rank (1: alike)."""

    budget: Budget
    rrf_k: int
    timer: StageTimer
    keyword_weight: float = 1.0


Score = Callable[[SearchIndex, str, RankRequest], Ranking]


@dataclass(frozen=True)
class Ranker:
    name: str
    score: Score
    description: str


_RANKERS: dict[str, Ranker] = {}
_NAME = re.compile(r"[a-z][a-z0-9_-]*")


def register(name: str, score: Score, description: str) -> Ranker:
    """Make `name` a ranker: a method may start with it (`name+names+links`). A name must be new,
    lower case, without `+`, and no stage or alias name."""
    if not _NAME.fullmatch(name) or name in EXPANSIONS or name in ALIASES:
        raise HopgraphError(f"cannot register ranker {name!r}: a ranker name is lower case letters, digits, "
                            f"- or _, and none of {', '.join([*EXPANSIONS, *ALIASES])}")
    if name in _RANKERS:
        raise HopgraphError(f"cannot register ranker {name!r}: a ranker of that name exists already")
    ranker = _RANKERS[name] = Ranker(name, score, description)
    return ranker


def get(name: str) -> Ranker:
    try:
        return _RANKERS[name]
    except KeyError:
        raise InputError(f"unknown ranker {name!r}; use one of {', '.join(_RANKERS)}") from None


def names() -> list[str]:
    """The known rankers, built-in ones first, in the order they were registered."""
    return list(_RANKERS)


def described() -> str:
    """Every ranker with its description, for help texts: `vector (…) | bm25 (…) | …`."""
    return " | ".join(f"{r.name} ({r.description})" for r in _RANKERS.values())


# --- the built-in rankers ------------------------------------------------------------------------


def bm25(index: SearchIndex, question: str, request: RankRequest) -> Ranking:
    scores = stages.bm25_scores(index, question)
    request.timer.step("bm25")
    return Ranking(scores)


def _cosine(index: SearchIndex, question: str, request: RankRequest) -> stages.Scores:
    question_vector = index.embedder.embed_query(question)
    request.timer.step("embed question")
    cosine = stages.vector_ranking(index, question_vector, request.budget.candidates)
    request.timer.step("vector")
    return cosine


def vector(index: SearchIndex, question: str, request: RankRequest) -> Ranking:
    return Ranking(_cosine(index, question, request))


def hybrid(index: SearchIndex, question: str, request: RankRequest) -> Ranking:
    """Vector and BM25 ranks fused by reciprocal rank fusion (a BM25 rank counting
    `request.keyword_weight` times a vector rank)."""
    depth, timer = request.budget.candidates, request.timer
    cosine = _cosine(index, question, request)
    keyword = stages.bm25_scores(index, question)
    timer.step("bm25")
    ranked = {"vector": stages.ranked_rows(cosine, depth), "bm25": stages.ranked_rows(keyword, depth)}
    # each ranker's row → rank for the hits' `ranks` (a dict of its ≤ depth rows, not an array per chunk)
    ranks = {name: dict(zip(rows.tolist(), range(1, len(rows) + 1), strict=True)) for name, rows in ranked.items()}
    # Cosine breaks ties (and orders rows neither ranker reached) without ever outweighing a rank.
    weight = request.keyword_weight
    fused = stages.fuse_ranked(list(ranked.values()), request.rrf_k, _scaled(cosine, 1e-6), [1.0, weight])
    timer.step("fuse", f"reciprocal rank fusion, k={request.rrf_k}, depth={depth}"
               + (f", bm25 ranks weighted {weight:g}×" if weight != 1.0 else ""))
    return Ranking(fused, ranks)


def _scaled(scores: stages.Scores, factor: float) -> stages.Scores:
    """factor × scores in the scores' own precision (float32 cosines), dense or sparse alike."""
    if isinstance(scores, SparseScores):
        return scores.map(lambda v: (factor * v.astype(np.float32)).astype(np.float64))
    return factor * scores


register("vector", vector, "cosine similarity of embeddings")
register("bm25", bm25, "keyword scores")
register("hybrid", hybrid, "vector and bm25 fused by reciprocal rank")
