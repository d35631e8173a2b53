"""The typed records that flow through hopgraph: documents in, hits and traces out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from hopgraph.errors import InputError

FoundBy = Literal["vector", "bm25", "hybrid", "name", "link", "graph"]


@dataclass(frozen=True)
class Document:
    """One source document as read from disk, before chunking."""

    title: str
    text: str
    source: str


@dataclass(frozen=True)
class Chunk:
    """A token window of a document; `ord` is its position within the document."""

    doc_key: str
    ord: int
    text: str
    n_tokens: int


@dataclass(frozen=True)
class Via:
    """How a linked hit was reached: from which hit, through which name."""

    from_chunk: int
    from_title: str
    name: str


@dataclass
class Hit:
    """One retrieved chunk, with the score of the stage that ranked it and how it was found."""

    chunk_id: int
    doc_id: int
    title: str
    text: str
    score: float
    found_by: FoundBy
    via: Via | None = None
    ranks: dict[str, int] = field(default_factory=dict)  # for hybrid: its rank by vector and by bm25

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

    def __post_init__(self) -> None:
        if self.top < 1:
            raise InputError(f"top must be at least 1, got {self.top}")
        if self.seeds < 0:
            raise InputError(f"seeds must be 0 or more, got {self.seeds}")


@dataclass(frozen=True)
class TraceStep:
    """What one retrieval stage did and how long it took."""

    stage: str
    ms: float
    detail: str = ""


@dataclass
class Retrieval:
    """The answer of a retrieval method: ranked hits plus the trace of the stages that made them."""

    method: str
    hits: list[Hit]
    trace: list[TraceStep] = field(default_factory=list)

    @property
    def ms(self) -> float:
        return sum(step.ms for step in self.trace)
