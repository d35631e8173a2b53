"""Storage behind five small protocols (base.py); `open_store` picks the backend from the location."""

from hopgraph.store.base import CommunityStore, DocumentStore, KnowledgeStore, ReplyStore, StatsStore, Store
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.store.sqlite.store import LOCK_TIMEOUT

URL_SCHEMES = ("postgresql://", "postgres://")


def database_errors() -> tuple[type[Exception], ...]:
    """The errors of every installed backend's driver: what the command line reports as the store's."""
    import sqlite3

    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error)


def is_url(location: str) -> bool:
    """A PostgreSQL URL rather than a file path."""
    return location.startswith(URL_SCHEMES)


def open_store(location: str, create: bool = True, lock_timeout: float = LOCK_TIMEOUT) -> Store:
    """PostgreSQL + pgvector for a `postgresql://` URL (the `postgres` extra), else the embedded
    SQLite store at a file path.

    `create=False`: the store must exist already (for commands that only read)."""
    if is_url(location):
        from hopgraph.store.postgres.connection import require_driver

        require_driver()
        from hopgraph.store.postgres.store import PostgresStore

        return PostgresStore(location, create, lock_timeout)
    return SQLiteStore(location, create, lock_timeout)


__all__ = ["CommunityStore", "DocumentStore", "KnowledgeStore", "ReplyStore", "StatsStore", "Store", "database_errors",
           "is_url", "open_store"]
