"""Storage behind five small protocols (base.py); `open_store` picks the backend by the location's
URL scheme (backends.py)."""

from hopgraph.store.backends import backend_for, database_errors
from hopgraph.store.base import CommunityStore, DocumentStore, KnowledgeStore, ReplyStore, StatsStore, Store
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.store.sqlite.store import LOCK_TIMEOUT


def is_url(location: str) -> bool:
    """A server store's URL rather than a file path."""
    return not backend_for(location).file


def open_store(location: str, create: bool = True, lock_timeout: float = LOCK_TIMEOUT) -> Store:
    """The store at `location`, opened by its backend: the embedded SQLite store at a file path,
    PostgreSQL + pgvector for a `postgresql://` URL (the `postgres` extra), or a plugin's.

    `create=False`: the store must exist already (for commands that only read)."""
    return backend_for(location).open(location, create, lock_timeout)


__all__ = ["CommunityStore", "DocumentStore", "KnowledgeStore", "ReplyStore", "SQLiteStore", "StatsStore", "Store",
           "database_errors", "is_url", "open_store"]
