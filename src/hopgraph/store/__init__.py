"""Storage behind one small interface; `open_store` picks the implementation from the path."""

from hopgraph.store.base import ChunkTable, DocumentChange, GraphRows, RunRecord, Store, StoredDocument
from hopgraph.store.sqlite import SQLiteStore


def open_store(path: str) -> Store:
    """The embedded SQLite store (PostgreSQL will be chosen here by a postgresql:// URL)."""
    return SQLiteStore(path)


__all__ = [
    "ChunkTable", "DocumentChange", "GraphRows", "RunRecord", "SQLiteStore", "Store", "StoredDocument", "open_store",
]
