"""One open store shared by concurrent requests: a warm reader for questions, a writer behind a lock.

uvicorn runs the API's (sync) routes in a thread pool, so requests overlap. A `HopGraph` holds one
database connection, and a write on a connection is seen by every other statement on it, committed
or not; its lazily made search structures are only built once it has been asked. So:

- **Reads** (search, local, paths, iterative questions, documents, entities, paths) run on the
  *reader*: its search index and knowledge graph are loaded once, up front, and shared by every
  thread (they are only read). On a SQLite store in WAL mode its connection keeps answering from
  the last committed state while a write runs on the other one, so no read waits for an index run.
- **Writes** (adding and removing documents) and whatever may write on its way (global, lazy and
  DRIFT questions build and store the community tree and its reports on first use; so does
  GET /communities) run one at a time on the *writer*, under a lock.
- A **question that may write** never waits for that lock (`write_if_free`): when the writer is
  busy (an upload being indexed), it runs on the reader, and a write it would make while the index
  run holds the store is skipped — what it made is used now and kept by a later question. Such
  questions run one at a time on the reader (a write transaction on a shared connection would be
  seen, uncommitted, by the other reads on it), so they queue behind each other only, never behind
  an index run.
- The store says when what a reader loaded went stale: every index run writes a fresh
  `generation`, every knowledge-graph rebuild a fresh `graph_generation` (in the transaction that
  makes the change), whichever process ran it — this server, or `hopgraph index`, `extract`,
  `import-triples` beside it. Each request first reads the two (one meta query); when they differ
  from what the current reader was loaded at, one thread warms a fresh reader and swaps it in while
  the others wait for it. Requests already running finish on the old reader, which is closed when
  the last of them is done. A read that the old reader cannot finish because a write withdrew a
  chunk it was about to read (LazyTexts' KeyError) runs once more on a fresh reader. The writer is
  reopened before a write when the store changed since it was opened (its graph view is cached too).
- A **watcher** thread does the same check every `refresh_seconds` (1 s by default) with no request
  asking, so a replica beside another writer loads a write within about that time plus one warm
  (issue 24: a write seen by every replica within 5 s), and the first request after the write
  finds the fresh reader ready instead of warming it. It only ever calls `_refresh`, so it never
  holds a reader a request needs; a failed check (the database briefly away) is logged and retried.
- `serving()` says which state the current reader answers from and since when (GET /health), so a
  deploy script or a load balancer can tell a replica that has caught up with a write from one
  still loading it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastapi import Depends, Request

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.store.sql.tables import GRAPH_GENERATION

log = logging.getLogger("hopgraph.serve")

T = TypeVar("T")
Marker = tuple[str, str]  # the store's (generation, graph_generation): what a reader was loaded at


@dataclass(frozen=True)
class Serving:
    """The state the current reader answers from: the store's marker when it was loaded, and the
    wall-clock time (epoch seconds) it was swapped in."""

    generation: str
    graph_generation: str
    since: float


class SharedGraph:
    def __init__(self, store: str, settings: Settings) -> None:
        self._store, self._settings = store, settings
        self._write_lock = threading.Lock()
        self._reader_write_lock = threading.Lock()  # questions that may write, on the reader: one at a time
        self._refresh_lock = threading.Lock()  # one fresh reader is warmed at a time
        self._lease_lock = threading.Lock()  # guards the two dicts below and the swap of `_reader`
        self._leases: Counter[int] = Counter()  # id(reader) → requests running on it
        self._born: dict[int, Marker] = {}  # id(reader) → the store's marker when it was loaded
        self._writer = HopGraph(store, settings, quiet=True, create=False)
        try:
            self._writer_born = store_marker(self._writer)
            self._embedder = self._writer.embedder  # made once: every reader and writer shares its model
            self._reader = self._warm_reader()
            self._since = time.time()
        except BaseException:
            self._writer.close()
            raise
        self._closing = threading.Event()
        self._watcher: threading.Thread | None = None
        if settings.refresh_seconds > 0:
            self._watcher = threading.Thread(target=self._watch, args=(settings.refresh_seconds,),
                                             name="hopgraph-refresh", daemon=True)
            self._watcher.start()

    @property
    def location(self) -> str:
        return self._writer.store.location

    def serving(self) -> Serving:
        """The store state the current reader answers from, and since when."""
        with self._lease_lock:
            return Serving(*self._born[id(self._reader)], self._since)

    def read(self, query: Callable[[HopGraph], T]) -> T:
        """`query` on a current reader, concurrently with other reads and with a running write."""
        with self.reading() as reader:
            try:
                return query(reader)
            except KeyError:
                if not self._stale(reader):
                    raise  # the store did not change under it: a real error
        with self.reading() as reader:  # the store changed: this reader is a fresh one
            return query(reader)

    def write(self, change: Callable[[HopGraph], T]) -> T:
        """`change` on the writer, one at a time; then the reader is renewed if the store changed."""
        with self._write_lock:
            return self._write_held(change)

    def write_if_free(self, change: Callable[[HopGraph], T]) -> T:
        """`change` on the writer if no write runs now, else on a reader, where a write it makes is
        skipped if the store is held (`change` must tolerate that, as a question's caches do): never
        waits for a writer."""
        if self._write_lock.acquire(blocking=False):
            try:
                return self._write_held(change)
            finally:
                self._write_lock.release()

        def skipping_writes(reader: HopGraph) -> T:
            with self._reader_write_lock, reader.store.waiting_at_most(0):
                return change(reader)

        return self.read(skipping_writes)

    def _write_held(self, change: Callable[[HopGraph], T]) -> T:
        """`change` on the writer; the caller holds the write lock."""
        # The store changed since the writer was opened (by another process, or by this server's
        # last write: telling them apart is not worth it, a reopen costs a connection): what the
        # writer loaded is stale, so it starts afresh.
        if store_marker(self._writer) != self._writer_born:
            self._reopen_writer()
        try:
            return change(self._writer)
        finally:
            self._refresh()

    def close(self) -> None:
        self._closing.set()
        if self._watcher is not None:
            self._watcher.join(timeout=60)  # a warm it started finishes first: no reader is left half-made
        with self._write_lock, self._refresh_lock:
            self._writer.close()
            self._retire(self._reader)

    @contextmanager
    def reading(self) -> Iterator[HopGraph]:
        """A reader as current as the last commit, held for the block (a request's dependency may
        hold it to its end)."""
        reader = self._take()
        if self._stale(reader):
            self._release(reader)
            self._refresh()
            reader = self._take()
        try:
            yield reader
        finally:
            self._release(reader)

    def _stale(self, reader: HopGraph) -> bool:
        """Whether the store changed since `reader` loaded it (one meta query, on the reader's connection)."""
        with self._lease_lock:
            born = self._born[id(reader)]
        return store_marker(reader) != born

    def _refresh(self) -> None:
        """Swap in a fresh reader if the current one is stale. One thread warms it; the others wait
        here and then find it current."""
        with self._refresh_lock:
            with self._lease_lock:
                current = self._reader
            if not self._stale(current):
                return
            fresh = self._warm_reader()
            with self._lease_lock:
                self._reader, self._since = fresh, time.time()
        self._retire(current)

    def _watch(self, every: float) -> None:
        """Swap in a fresh reader within `every` seconds of another process's commit, until closed."""
        while not self._closing.wait(every):
            try:
                self._refresh()
            except Exception:  # the next round tries again; a request would meet the same error itself
                log.warning("could not check %s for new writes", self.location, exc_info=True)

    def _reopen_writer(self) -> None:
        old = self._writer
        self._writer = HopGraph(self._store, self._settings, embedder=self._embedder, quiet=True, create=False)
        self._writer_born = store_marker(self._writer)
        old.close()

    def _warm_reader(self) -> HopGraph:
        """A reader with its search index and graph loaded. Its marker is read before anything is
        loaded, so a commit that lands while it loads makes it stale at once, never wrongly current."""
        reader = HopGraph(self._store, self._settings, embedder=self._embedder, quiet=True, create=False)
        try:
            marker = store_marker(reader)
            _ = reader.search_index, reader.graph_view
            if reader.has_llm:
                reader.llm()  # one client for every thread, made before they would race to make it
        except BaseException:
            reader.close()
            raise
        with self._lease_lock:
            self._born[id(reader)] = marker
        return reader

    def _take(self) -> HopGraph:
        with self._lease_lock:
            reader = self._reader
            self._leases[id(reader)] += 1
        return reader

    def _release(self, reader: HopGraph) -> None:
        with self._lease_lock:
            self._leases[id(reader)] -= 1
            done = self._leases[id(reader)] == 0 and reader is not self._reader and self._forget(reader)
        if done:
            reader.close()

    def _retire(self, reader: HopGraph) -> None:
        """Close a reader no longer current once no request runs on it (now, or when the last ends)."""
        with self._lease_lock:
            done = self._leases[id(reader)] == 0 and self._forget(reader)
        if done:
            reader.close()

    def _forget(self, reader: HopGraph) -> bool:
        """Drop a reader's entries (the caller holds the lease lock). True for the first caller only,
        so a reader released and retired at once is closed once."""
        self._leases.pop(id(reader), None)
        return self._born.pop(id(reader), None) is not None


def store_marker(hg: HopGraph) -> Marker:
    """The store's state as committed now: every index run writes a fresh `generation`, every
    knowledge-graph rebuild a fresh `graph_generation`."""
    meta = hg.store.meta()
    return meta.get("generation", ""), meta.get(GRAPH_GENERATION, "")


def shared_graph(request: Request) -> SharedGraph:
    """The FastAPI dependency of every route that reads or writes the store (`app.state.graph`)."""
    return request.app.state.graph


Graph = Annotated[SharedGraph, Depends(shared_graph)]  # a route's parameter: `graph: Graph`
