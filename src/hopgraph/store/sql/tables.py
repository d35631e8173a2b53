"""What the shared table code needs from a SQL backend: a database handle and a write transaction.

The table mixins of store/sql/ are written once, in the SQL that SQLite (≥ 3.35) and PostgreSQL
share: `?` placeholders, `INSERT … ON CONFLICT … DO UPDATE/NOTHING`, `RETURNING id`. A backend
supplies the handle (`Database`: `execute` / `executemany` with `?` placeholders; PostgreSQL's
translates them to `%s` once per statement), its write transaction, and the two things that really
differ: how a vector is stored, and the reply cache's connection.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

import numpy as np

BATCH = 500  # ids per `IN (…)` list: well under SQLite's 999 bound parameters
UPSERT_META = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
# Set in the transaction that changes facts (written, replaced, or deleted with their chunks and not
# carried whole to new ones), cleared in the one that replaces the knowledge graph: a run stopped
# between the two (killed after its last batch of facts, or after an index run withdrew chunks that
# stated facts) leaves it set, so the next write rebuilds the graph before anything else.
GRAPH_BEHIND = "graph_behind_facts"
# A fresh value in every transaction that replaces the knowledge graph, as `generation` is in every
# index run: how a process holding the graph in memory (`hopgraph serve`) sees another rebuild it.
GRAPH_GENERATION = "graph_generation"


class Cursor(Protocol):
    rowcount: int
    description: Any

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Any: ...


class Database(Protocol):
    """A connection as the table code uses it (sqlite3.Connection is one as it stands)."""

    def execute(self, sql: str, parameters: Sequence[Any] = ...) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any: ...

    def close(self) -> None: ...


class Tables(ABC):
    """The base of every table mixin: the connection, the location, and what each backend must
    supply — its write transaction and how it stores a vector (abstract: a store that forgets one
    cannot be made)."""

    _db: Database
    _path: str
    _lock_timeout: float  # seconds a write transaction waits for another writer

    @property
    def location(self) -> str:
        return self._path

    @contextmanager
    def waiting_at_most(self, seconds: float) -> Iterator[None]:
        """Write transactions begun inside wait at most `seconds` for another writer."""
        saved, self._lock_timeout = self._lock_timeout, seconds
        try:
            yield
        finally:
            self._lock_timeout = saved

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[None]: ...

    @abstractmethod
    def cached_vectors(self, text_hashes: Sequence[str], model: str) -> dict[str, np.ndarray]: ...

    @abstractmethod
    def save_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None: ...


def batches(values: Sequence[Any]) -> Iterable[tuple[Sequence[Any], str]]:
    """`values` in slices of BATCH, each with its `?, ?, …` marks."""
    for start in range(0, len(values), BATCH):
        part = values[start : start + BATCH]
        yield part, ",".join("?" * len(part))
