"""The storage interface and the typed tables that cross it.

Retrieval code only sees these types; SQL of one dialect lives in its store module alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from hopgraph.model import Chunk, Document
from hopgraph.names import Name


@dataclass(frozen=True)
class StoredDocument:
    id: int
    source: str
    title: str
    content_hash: str


def rows_by_document(doc_ids: np.ndarray) -> dict[int, list[int]]:
    """Document id → the chunk rows of that document, in row order."""
    rows: dict[int, list[int]] = {}
    for row, doc in enumerate(doc_ids.tolist()):
        rows.setdefault(doc, []).append(row)
    return rows


@dataclass
class ChunkTable:
    """The active chunks, row-aligned: row i of every array is the same chunk."""

    ids: np.ndarray
    doc_ids: np.ndarray
    texts: list[str]
    text_hashes: list[str]
    titles: dict[int, str]  # document id → title
    sources: dict[int, str] = field(default_factory=dict)  # document id → source (file path)

    def __len__(self) -> int:
        return len(self.ids)

    def row_of(self) -> dict[int, int]:
        return {chunk_id: row for row, chunk_id in enumerate(self.ids.tolist())}


@dataclass
class DocumentChange:
    """What one index run changes: documents to add or replace (with chunks), ids to withdraw."""

    # (document, content hash, [(chunk, text hash)])
    upserts: list[tuple[Document, str, list[tuple[Chunk, str]]]] = field(default_factory=list)
    withdrawn: list[int] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.upserts and not self.withdrawn


@dataclass
class GraphRows:
    """Names, mentions and links, with chunk ids (not rows) and name positions in `names`."""

    names: list[Name]
    mentions: list[tuple[int, int]]  # (chunk id, name position)
    links: list[tuple[int, int, int]]  # (source chunk id, target chunk id, name position)


GraphBuilder = Callable[[ChunkTable], GraphRows]


@dataclass(frozen=True)
class RunRecord:
    """One line of the `runs` log; `stats` is called after the graph is built, inside the transaction."""

    command: str
    started_at: str
    stats: Callable[[], str]


class Store(Protocol):
    def active_documents(self) -> dict[tuple[str, str], StoredDocument]:
        """Documents not withdrawn, keyed by (source, title)."""
        ...

    def cached_vectors(self, text_hashes: Sequence[str], model: str) -> dict[str, np.ndarray]: ...

    def save_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None:
        """Commit embeddings at once: they are a cache, valid whatever happens to the index run."""
        ...

    def apply(self, change: DocumentChange, build_graph: GraphBuilder, meta: dict[str, str],
              run: RunRecord) -> GraphRows:
        """One transaction: apply the change, rebuild the graph over the result, write meta and run."""
        ...

    def chunk_table(self) -> ChunkTable: ...

    def vector_matrix(self, text_hashes: Sequence[str], model: str) -> np.ndarray:
        """One row per hash, in order; a missing vector is an error."""
        ...

    def graph(self) -> tuple[list[tuple[int, str, int | None, str]], list[tuple[int, int, int]]]:
        """Names as (id, surface, doc id, filtered) and links as (source, target, name id)."""
        ...

    def meta(self) -> dict[str, str]: ...

    def close(self) -> None: ...
