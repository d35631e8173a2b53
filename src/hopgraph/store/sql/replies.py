"""The reply cache of the SQL stores: validated LLM replies in the store's `llm_cache` table."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from hopgraph.errors import HopgraphError
from hopgraph.llm.cache import CachedReply, write_replay
from hopgraph.records.documents import utc_now
from hopgraph.store.sql.tables import Database


class TableLLMCache:
    """The `llm_cache` table of a store, on a connection of its own (made by the store's `reply_cache`).

    Each put is its own committed transaction (autocommit), independent of the store's write
    transaction: a reply that cost money stays valid whatever happens to the run that asked for it.
    One connection is shared by the client's worker threads behind a lock. `errors` are the
    backend's database errors, reported as a broken cache.
    """

    def __init__(self, db: Database, path: str, errors: tuple[type[Exception], ...]) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db, self._errors = db, errors

    def get(self, key: str) -> CachedReply | None:
        row = self._execute("SELECT model, response, tokens_in, tokens_out FROM llm_cache WHERE key = ?", (key,))
        return CachedReply(*row[0]) if row else None

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None:
        created_at = utc_now()
        self._execute("INSERT INTO llm_cache (key, model, response, tokens_in, tokens_out, created_at) "
                      "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET model = excluded.model, "
                      "response = excluded.response, tokens_in = excluded.tokens_in, "
                      "tokens_out = excluded.tokens_out, created_at = excluded.created_at",
                      (key, model, response_text, int(tokens_in), int(tokens_out), created_at))

    def _execute(self, sql: str, parameters: tuple[Any, ...]) -> list[Any]:
        """A broken cache is a setup problem for the whole run, not one chunk's failure: hence a
        HopgraphError (which `complete_many` does not swallow), not an LLMError."""
        try:
            with self._lock:
                cursor = self._db.execute(sql, parameters)
                return cursor.fetchall() if cursor.description is not None else []
        except self._errors as err:
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
