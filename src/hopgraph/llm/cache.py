"""Caches of LLM replies, keyed by everything that decides the reply.

Extraction over thousands of chunks is the slow, paid part of a run; a cache makes a re-run (or a
run resumed after a crash) cost nothing for the chunks already answered. Only replies that passed
validation are ever stored, so a bad reply is never replayed. `ReplayLLMCache` serves recorded
replies from a JSON file: unit tests replay real model output without a model or network.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from hopgraph.errors import HopgraphError


class LLMError(HopgraphError):
    """An LLM call that could not produce a valid reply: names the endpoint, model and problem.

    Defined here, the lowest module of the package, so the caches can raise it too.
    """


@dataclass(frozen=True)
class CachedReply:
    """A validated reply as it was received: the raw text is re-validated on every hit."""

    model: str
    response: str
    tokens_in: int
    tokens_out: int


class LLMCache(Protocol):
    """Where `LLMClient` looks before calling the endpoint, and stores what validated."""

    def get(self, key: str) -> CachedReply | None: ...

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None: ...


def cache_key(model: str, messages: list[dict[str, Any]], response_format: str | None, max_tokens: int,
              temperature: float) -> str:
    """sha256 of a canonical JSON of the request: sorted keys and fixed separators, so two equal
    requests built in different orders share one entry. `response_format` is the response model's
    name (None for free text), not its transport mode: a json_schema and a json_object reply to
    the same request are interchangeable once validated."""
    canonical = json.dumps(
        {"model": model, "messages": messages, "format": response_format, "max_tokens": max_tokens,
         "temperature": float(temperature)},
        sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_SCHEMA = """CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    created_at TEXT NOT NULL
)"""


class SQLiteLLMCache:
    """The `llm_cache` table, usually inside the store file, on a connection of its own.

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
            self._db.execute("PRAGMA journal_mode=WAL")  # as the store does: readers never block a put
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as err:
            raise LLMError(f"cannot open the LLM cache in {self.path}: {err}") from None

    def get(self, key: str) -> CachedReply | None:
        row = self._execute("SELECT model, response, tokens_in, tokens_out FROM llm_cache WHERE key = ?", (key,))
        return CachedReply(*row[0]) if row else None

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None:
        created_at = datetime.now(UTC).isoformat(timespec="seconds")
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
        return _write_replay(path, entries)

    def close(self) -> None:
        with self._lock:
            self._db.close()


class ReplayLLMCache:
    """Recorded replies in memory, loaded from (and saved to) a JSON list of
    `{key, model, response, tokens_in, tokens_out}`.

    `strict=True` is replay mode: a miss raises `LLMError("no recorded reply for …")` instead of
    letting the client reach the network, so a test can never silently depend on a live model.
    `strict=False` is record mode: misses go to the endpoint, and what validated is kept for
    `record_to(path)`.
    """

    def __init__(self, path: str | Path | None = None, *, strict: bool = True) -> None:
        self.source = str(path) if path is not None else "memory"
        self.strict = strict
        self._lock = threading.Lock()
        self._entries: dict[str, CachedReply] = {}
        if path is not None:
            self._entries = _read_replay(Path(path))

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            hit = self._entries.get(key)
        if hit is None and self.strict:
            raise LLMError(f"no recorded reply for key {key[:16]}… in {self.source} (replay mode: "
                           "re-record with strict=False against a real endpoint)")
        return hit

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None:
        with self._lock:
            self._entries[key] = CachedReply(model, response_text, int(tokens_in), int(tokens_out))

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def record_to(self, path: str | Path) -> int:
        """Write the entries (loaded and newly received) as replay JSON; returns how many."""
        with self._lock:
            entries = dict(self._entries)
        return _write_replay(path, entries)


def _read_replay(path: Path) -> dict[str, CachedReply]:
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list):
            raise ValueError("expected a JSON list")
        return {str(row["key"]): CachedReply(str(row["model"]), str(row["response"]), int(row["tokens_in"]),
                                             int(row["tokens_out"])) for row in rows}
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise LLMError(f"cannot read recorded LLM replies from {path}: {err}") from None


def _write_replay(path: str | Path, entries: dict[str, CachedReply]) -> int:
    rows = [{"key": key, **asdict(reply)} for key, reply in sorted(entries.items())]
    Path(path).write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(rows)
