"""The embedded store: one SQLite file in WAL mode; every write is one transaction."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from hopgraph.llm.cache import LLMCache, ReplayLLMCache
from hopgraph.store.sql.communities import CommunityTables
from hopgraph.store.sql.documents import DocumentTables
from hopgraph.store.sql.knowledge import KnowledgeTables
from hopgraph.store.sql.stats import StatsTables
from hopgraph.store.sql.tables import batches
from hopgraph.store.sqlite.connection import MEMORY, Transaction, connect
from hopgraph.store.sqlite.replies import SQLiteLLMCache

LOCK_TIMEOUT = 30.0  # seconds a writer waits for another writer before naming it and giving up


class SQLiteStore(DocumentTables, KnowledgeTables, CommunityTables, StatsTables):
    """All five store protocols (store/base.py) over one SQLite file.

    `create=False` opens only a store that exists (commands that read never leave an empty file
    behind a mistyped path)."""

    def __init__(self, path: str, create: bool = True, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self._path = path
        self._lock_timeout = lock_timeout
        self._db = connect(path, create, lock_timeout)

    def _transaction(self) -> Transaction:
        return Transaction(self._db, self._path, self._lock_timeout)

    def cached_vectors(self, text_hashes: Sequence[str], model: str) -> dict[str, np.ndarray]:
        """Vectors are float32 BLOBs."""
        found: dict[str, np.ndarray] = {}
        for part, marks in batches(list(dict.fromkeys(text_hashes))):
            for text_hash, blob in self._db.execute(
                    f"SELECT text_hash, vector FROM vectors WHERE model = ? AND text_hash IN ({marks})",
                    [model, *part]):
                found[text_hash] = np.frombuffer(blob, dtype=np.float32)
        return found

    def save_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None:
        with self._transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (text_hash, model, vector) VALUES (?, ?, ?)",
                [(h, model, v.astype(np.float32).tobytes()) for h, v in vectors.items()])

    def reply_cache(self) -> LLMCache:
        """The `llm_cache` table on a connection of its own, so a paid reply is committed at once,
        whatever the store's own transaction does. An in-memory store keeps replies in memory."""
        if self._path == MEMORY:
            return ReplayLLMCache(strict=False)
        return SQLiteLLMCache(self._path, busy_timeout=self._lock_timeout)

    def disk_bytes(self) -> dict[str, int]:
        """The file and its write-ahead log (nothing for an in-memory store)."""
        if self._path == MEMORY:
            return {}
        return {part: _size(self._path + suffix) for part, suffix in (("file", ""), ("wal", "-wal"))}

    def close(self) -> None:
        self._db.close()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:  # no WAL right after a checkpoint on close
        return 0
