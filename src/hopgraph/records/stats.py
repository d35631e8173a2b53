"""Records of what a store holds: its counts, its run log, and both with its size (`hopgraph stats`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class StoreCounts:
    """Rows of each kind, counted by the store in one statement. Documents and chunks are the
    active ones (a withdrawn document keeps only its row, counted in `withdrawn_documents`)."""

    documents: int = 0
    withdrawn_documents: int = 0
    chunks: int = 0
    names: int = 0
    names_filtered: int = 0  # names that make no links (short, numeric, common)
    links: int = 0
    extracted_chunks: int = 0  # chunks with facts from at least one extractor
    entities: int = 0
    relations: int = 0
    superseded_relations: int = 0  # replaced by a later fact (kg/supersession.py)
    pending_merges: int = 0
    communities: int = 0
    community_levels: int = 0
    reports: int = 0  # community reports kept (by content hash, every writer)


@dataclass(frozen=True)
class StoredRun:
    """One line of the store's run log: what ran, when, and what it reported (an index run's report)."""

    id: int
    command: str
    started_at: str
    finished_at: str
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StoreStats:
    location: str
    backend: str  # "sqlite" | "postgresql"
    counts: StoreCounts
    bytes: dict[str, int]  # by part: file, wal (SQLite) or tables (PostgreSQL), search_snapshot
    generation: str = ""  # the state the last index or remove run wrote (keys the search snapshot)
    embedder: str = ""
    runs: list[StoredRun] = field(default_factory=list)  # newest first
    # Relations that hold today (`Relation.holds_on`): neither superseded nor ended — dates the
    # one-statement counts cannot weigh.
    current_relations: int = 0

    @property
    def total_bytes(self) -> int:
        return sum(self.bytes.values())

    def to_json(self) -> dict[str, Any]:
        counts = asdict(self.counts) | {"current_relations": self.current_relations}
        return {"location": self.location, "backend": self.backend, "counts": counts,
                "bytes": self.bytes | {"total": self.total_bytes}, "generation": self.generation,
                "embedder": self.embedder, "runs": [asdict(run) for run in self.runs]}
