"""The typed records that flow through hopgraph: documents in, hits and traces out."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from hopgraph.errors import InputError

FoundBy = Literal["vector", "bm25", "hybrid", "name", "link", "graph", "ppr"]


@dataclass(frozen=True)
class Via:
    """How a linked hit was reached: from which hit, through which name."""

    from_chunk: int
    from_title: str
    name: str


@dataclass
class Hit:
    """One retrieved chunk and how it was found.

    A stage builds it with `score` = its own number (a fused RRF score, a PPR mass, a link's
    weight: scales that do not compare). Once ranked in a `Retrieval`, `score` is 1/rank, monotone
    in rank as frameworks' cut-offs (LlamaIndex's `similarity_cutoff`) expect, and the stage's
    number moves to `stage_score`; `ranks` keeps each ranker's rank of a fused hit."""

    chunk_id: int
    doc_id: int
    title: str
    text: str
    score: float
    found_by: FoundBy
    via: Via | None = None
    ranks: dict[str, int] = field(default_factory=dict)  # for hybrid: its rank by vector and by bm25
    source: str = ""  # where a reader finds it: `report.pdf#p3`, `notes.md#2`, `Adriana Trigiani#1` (ChunkTable)
    stage_score: float | None = None  # the placing stage's own number; None until ranked in a Retrieval

    def describe_path(self) -> str:
        """`Big Stone Gap (film) → Adriana Trigiani via "Adriana Trigiani"` for a link hit;
        `hybrid: vector #2, bm25 #1` for a fused one."""
        if self.found_by == "graph" and self.via is not None:
            return f"graph: {self.via.from_title} {self.via.name}"
        if self.via is not None:
            return f'{self.via.from_title} → {self.title} via "{self.via.name}"'
        if self.found_by == "hybrid":
            ranked = ", ".join(f"{name} #{rank}" for name, rank in self.ranks.items()) or "unranked"
            return f"hybrid: {ranked}"
        return self.found_by


@dataclass(frozen=True)
class Budget:
    """The limits every retrieval method obeys: `top` places, links followed from `seeds` hits."""

    top: int = 5
    seeds: int = 3
    candidates: int = 100  # depth of each ranking that fusion and link ordering look at
    # Personalized PageRank (`+ppr`, `ppr`, `auto`): the chance of following an edge rather than
    # restarting at a seed, the most power iterations, and how far from a seed the walk may go
    # (edges: chunk → name → chunk → name → chunk is 4). A ranker or link hit's weight as a seed
    # (a chunk the question names weighs 1) and the weight of walking a link backwards (from a
    # paragraph to those that mention it): None takes the method's default (search/ppr_method.py).
    # 0.85, PageRank's usual value: 0.5, chosen on both shared halves at once, lost two 2Wiki questions
    # of half A for `ppr` when re-checked by half (issue 21 part 2).
    ppr_damping: float = 0.85
    ppr_iterations: int = 30
    ppr_hops: int = 4
    ppr_hit_weight: float | None = None
    ppr_reverse_weight: float | None = None
    context_tokens: int | None = None  # the hits' texts hold at most this many tokens (the first hit always kept)

    def __post_init__(self) -> None:
        if self.top < 1:
            raise InputError(f"top must be at least 1, got {self.top}")
        if self.seeds < 0:
            raise InputError(f"seeds must be 0 or more, got {self.seeds}")
        if not 0.0 <= self.ppr_damping < 1.0:
            raise InputError(f"ppr_damping must be in [0, 1), got {self.ppr_damping}")
        if self.ppr_iterations < 1:
            raise InputError(f"ppr_iterations must be at least 1, got {self.ppr_iterations}")
        if self.context_tokens is not None and self.context_tokens < 1:
            raise InputError(f"context_tokens must be at least 1, got {self.context_tokens}")
        for name in ("ppr_hit_weight", "ppr_reverse_weight"):
            if (getattr(self, name) or 0.0) < 0:
                raise InputError(f"{name} must be 0 or more, got {getattr(self, name)}")
        if self.ppr_hops < 1:
            raise InputError(f"ppr_hops must be at least 1, got {self.ppr_hops}")

    def describe(self) -> str:
        """The limits as one trace line: what a retrieval was allowed to use."""
        return (f"top {self.top}, seeds {self.seeds}, candidates {self.candidates}, ppr damping "
                f"{self.ppr_damping}, ≤ {self.ppr_iterations} iterations, ≤ {self.ppr_hops} hops"
                + (f", ≤ {self.context_tokens} context tokens" if self.context_tokens is not None else ""))


@dataclass(frozen=True)
class TraceStep:
    """What one retrieval stage did and how long it took."""

    stage: str
    ms: float
    detail: str = ""


def ranked(hits: list[Hit]) -> list[Hit]:
    """Copies of `hits` scored 1/rank in their order, each keeping its first stage's number in
    `stage_score` (re-ranking a ranked hit, as auto's top-up does, keeps it). Copies, so a hit
    shared with another retrieval keeps its own rank there."""
    return [replace(hit, score=1.0 / rank, stage_score=hit.score if hit.stage_score is None else hit.stage_score)
            for rank, hit in enumerate(hits, start=1)]


@dataclass
class Retrieval:
    """The answer of a retrieval method: ranked hits (scored 1/rank: `ranked`) plus the trace of
    the stages that made them."""

    method: str
    hits: list[Hit]
    trace: list[TraceStep] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hits = ranked(self.hits)

    @property
    def ms(self) -> float:
        return sum(step.ms for step in self.trace)
