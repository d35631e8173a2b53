"""The reply cache of the SQLite store: validated LLM replies in the store's `llm_cache` table."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from hopgraph.errors import HopgraphError
from hopgraph.llm.cache import CachedReply, LLMError, write_replay
from hopgraph.records.documents import utc_now


class SQLiteLLMCache:
    """The `llm_cache` table of a SQLite store, on a connection of its own (made by `SQLiteStore.reply_cache`).

    Each put is its own committed transaction (autocommit), independent of the store's write
    transaction: a reply that cost money stays valid whatever happens to the run that asked for it.
    WAL with synchronous=NORMAL, like the store: a crash loses nothing committed, and a put costs
    no fsync (a power cut may lose the last few, which are merely asked again). One connection is
    shared by the client's worker threads behind a lock; the busy timeout rides out the store's
    write transactions.
    """

    def __init__(self, path: str | Path, busy_timeout: float = 30.0) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=busy_timeout, check_same_thread=False,
                                       isolation_level=None)  # autocommit: each put commits alone
            self._db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as err:
            raise LLMError(f"cannot open the LLM cache in {self.path}: {err}") from None

    def get(self, key: str) -> CachedReply | None:
        row = self._execute("SELECT model, response, tokens_in, tokens_out FROM llm_cache WHERE key = ?", (key,))
        return CachedReply(*row[0]) if row else None

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None:
        created_at = utc_now()
        self._execute("INSERT OR REPLACE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?)",
                      (key, model, response_text, int(tokens_in), int(tokens_out), created_at))

    def _execute(self, sql: str, parameters: tuple[Any, ...]) -> list[Any]:
        """A broken cache is a setup problem for the whole run, not one chunk's failure: hence a
        HopgraphError (which `complete_many` does not swallow), not an LLMError."""
        try:
            with self._lock:
                return self._db.execute(sql, parameters).fetchall()
        except sqlite3.Error as err:
            raise HopgraphError(f"LLM cache in {self.path}: {err} (a put waits for the store's write "
                                "transaction: LLM calls must not run inside one)") from None

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def record_to(self, path: str | Path) -> int:
        """Dump every entry in the replay JSON format; returns how many were written."""
        with self._lock:
            rows = self._db.execute("SELECT key, model, response, tokens_in, tokens_out FROM llm_cache "
                                    "ORDER BY key").fetchall()
        entries = {key: CachedReply(*rest) for key, *rest in rows}
        return write_replay(path, entries)

    def close(self) -> None:
        with self._lock:
            self._db.close()
