"""Storage behind four small protocols (base.py); `open_store` picks the backend from the location."""

from hopgraph.store.base import CommunityStore, DocumentStore, KnowledgeStore, ReplyStore, Store
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.store.sqlite.store import LOCK_TIMEOUT


def open_store(location: str, create: bool = True, lock_timeout: float = LOCK_TIMEOUT) -> Store:
    """The embedded SQLite store at a file path (PostgreSQL will be chosen here by a postgresql:// URL).

    `create=False`: the store must exist already (for commands that only read)."""
    return SQLiteStore(location, create, lock_timeout)


__all__ = ["CommunityStore", "DocumentStore", "KnowledgeStore", "ReplyStore", "Store", "open_store"]
