"""The embedded store: one SQLite file in WAL mode; every write is one transaction."""

from __future__ import annotations

from hopgraph.llm.cache import LLMCache, ReplayLLMCache
from hopgraph.store.sqlite.communities import CommunityTables
from hopgraph.store.sqlite.connection import MEMORY, connect
from hopgraph.store.sqlite.documents import DocumentTables
from hopgraph.store.sqlite.knowledge import KnowledgeTables
from hopgraph.store.sqlite.replies import SQLiteLLMCache

LOCK_TIMEOUT = 30.0  # seconds a writer waits for another writer before naming it and giving up


class SQLiteStore(DocumentTables, KnowledgeTables, CommunityTables):
    """All four store protocols (store/base.py) over one SQLite file.

    `create=False` opens only a store that exists (commands that read never leave an empty file
    behind a mistyped path)."""

    def __init__(self, path: str, create: bool = True, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self._path = path
        self._lock_timeout = lock_timeout
        self._db = connect(path, create, lock_timeout)

    def reply_cache(self) -> LLMCache:
        """The `llm_cache` table on a connection of its own, so a paid reply is committed at once,
        whatever the store's own transaction does. An in-memory store keeps replies in memory."""
        if self._path == MEMORY:
            return ReplayLLMCache(strict=False)
        return SQLiteLLMCache(self._path, busy_timeout=self._lock_timeout)

    def close(self) -> None:
        self._db.close()
