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
- After a write that changed the index (a new `generation`), a fresh reader is made and warmed,
  then swapped in; requests already running finish on the old one, which is closed when the last
  of them is done. A read that the old reader cannot finish because the write withdrew a chunk it
  was about to read (LazyTexts' KeyError) waits for the swap and runs once more on the new reader.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, TypeVar

from fastapi import Depends, Request

from hopgraph.config import Settings
from hopgraph.engine import HopGraph

T = TypeVar("T")


class SharedGraph:
    def __init__(self, store: str, settings: Settings) -> None:
        self._store, self._settings = store, settings
        self._write_lock = threading.Lock()
        self._lease_lock = threading.Lock()  # guards the two dicts below and the swap of `_reader`
        self._leases: Counter[int] = Counter()  # id(reader) → requests running on it
        self._born: dict[int, str] = {}  # id(reader) → the generation it was loaded at
        self._writer = HopGraph(store, settings, quiet=True, create=False)
        try:
            self._reader = self._warm_reader()
        except BaseException:
            self._writer.close()
            raise

    @property
    def location(self) -> str:
        return self._writer.store.location

    def read(self, query: Callable[[HopGraph], T]) -> T:
        """`query` on the current reader, concurrently with other reads and with a running write."""
        with self.reading() as reader:
            try:
                return query(reader)
            except KeyError:
                if _generation(reader) == self._born[id(reader)]:
                    raise  # the store did not change under it: a real error
        with self._write_lock:  # a write committed meanwhile: wait until its fresh reader is in place
            pass
        with self.reading() as reader:
            return query(reader)

    def write(self, change: Callable[[HopGraph], T]) -> T:
        """`change` on the writer, one at a time; the reader is renewed if it changed the index."""
        with self._write_lock:
            before = _generation(self._writer)
            try:
                return change(self._writer)
            finally:
                if _generation(self._writer) != before:
                    self._swap_reader()

    def close(self) -> None:
        with self._write_lock:
            self._writer.close()
            self._retire(self._reader)

    def _warm_reader(self) -> HopGraph:
        """A reader with its search index and graph loaded, sharing the writer's embedder (its
        model is loaded once)."""
        reader = HopGraph(self._store, self._settings, embedder=self._writer.embedder, quiet=True, create=False)
        try:
            generation = _generation(reader)
            _ = reader.search_index, reader.graph_view
            if reader.has_llm:
                reader.llm()  # one client for every thread, made before they would race to make it
        except BaseException:
            reader.close()
            raise
        with self._lease_lock:
            self._born[id(reader)] = generation
        return reader

    def _swap_reader(self) -> None:
        fresh = self._warm_reader()
        with self._lease_lock:
            old, self._reader = self._reader, fresh
        self._retire(old)

    def _retire(self, reader: HopGraph) -> None:
        """Close a reader no longer current once no request runs on it (now, or when the last ends)."""
        with self._lease_lock:
            idle = self._leases[id(reader)] == 0
        if idle:
            self._close(reader)

    def _close(self, reader: HopGraph) -> None:
        with self._lease_lock:
            self._leases.pop(id(reader), None)
            self._born.pop(id(reader), None)
        reader.close()

    @contextmanager
    def reading(self) -> Iterator[HopGraph]:
        """The current reader, held for the block (a request's dependency may hold it to its end)."""
        with self._lease_lock:
            reader = self._reader
            self._leases[id(reader)] += 1
        try:
            yield reader
        finally:
            with self._lease_lock:
                self._leases[id(reader)] -= 1
                last = self._leases[id(reader)] == 0 and reader is not self._reader
            if last:
                self._close(reader)


def _generation(hg: HopGraph) -> str:
    """The store's state as committed now (every index run writes a fresh one)."""
    return hg.store.meta().get("generation", "")


def shared_graph(request: Request) -> SharedGraph:
    """The FastAPI dependency of every route that reads or writes the store (`app.state.graph`)."""
    return request.app.state.graph


Graph = Annotated[SharedGraph, Depends(shared_graph)]  # a route's parameter: `graph: Graph`
