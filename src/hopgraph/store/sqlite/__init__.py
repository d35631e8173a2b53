"""The embedded SQLite backend of the store protocols (store/base.py)."""

from hopgraph.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
