"""Records of the document side: documents and chunks as read, and as the store holds them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np


def utc_now() -> str:
    """The timestamp every record carries: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


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




@dataclass(frozen=True)
class RunRecord:
    """One line of the `runs` log; `stats` is called after the graph is built, inside the transaction."""

    command: str
    started_at: str
    stats: Callable[[], str]
