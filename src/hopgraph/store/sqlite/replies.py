"""The SQLite store's reply cache: the shared `llm_cache` table code on a SQLite connection of its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hopgraph.llm.cache import LLMError
from hopgraph.store.sql.replies import TableLLMCache


class SQLiteLLMCache(TableLLMCache):
    """WAL with synchronous=NORMAL, like the store: a crash loses nothing committed, and a put costs
    no fsync (a power cut may lose the last few, which are merely asked again); the busy timeout
    rides out the store's write transactions."""

    def __init__(self, path: str | Path, busy_timeout: float = 30.0) -> None:
        try:
            db = sqlite3.connect(str(path), timeout=busy_timeout, check_same_thread=False,
                                 isolation_level=None)  # autocommit: each put commits alone
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as err:
            raise LLMError(f"cannot open the LLM cache in {path}: {err}") from None
        super().__init__(db, str(path), (sqlite3.Error,))
