"""The chunk table of a search snapshot: row-aligned arrays, and texts read from the store on demand.

A query reads the texts of a handful of rows (its hits, the sentences of the answer), so opening a
million-chunk store for search must not read a million texts. `LazyTexts` is a sequence of the
texts by row that asks the store for the rows it is indexed by, in batches, and remembers them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import overload

import numpy as np

from hopgraph.records.documents import ChunkTable

BATCH = 500  # rows per store call when iterating (the store's own IN (...) batch size)


class LazyTexts(Sequence[str]):
    """Row → chunk text, fetched by chunk id through `fetch` (a store's `chunk_texts`) and kept."""

    def __init__(self, fetch: Callable[[list[int]], dict[int, str]], ids: np.ndarray) -> None:
        self._fetch, self._ids = fetch, ids
        self._known: dict[int, str] = {}
        self.fetched = 0  # texts read from the store so far (what tests and benchmarks look at)

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, row: int) -> str: ...
    @overload
    def __getitem__(self, row: slice) -> list[str]: ...

    def __getitem__(self, row: int | slice) -> str | list[str]:
        if isinstance(row, slice):
            rows = range(len(self))[row]
            self.prefetch(rows)
            return [self._known[r] for r in rows]
        row = int(row)
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError(f"row {row} out of range for {len(self)} chunks")
        if row not in self._known:
            self.prefetch([row])
        return self._known[row]

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), BATCH):
            yield from self[start : start + BATCH]

    def prefetch(self, rows: Iterable[int]) -> None:
        """Read the texts of these rows in one store call (those not known yet)."""
        missing = [int(r) for r in rows if int(r) not in self._known]
        if not missing:
            return
        ids = self._ids[missing].tolist()
        found = self._fetch(ids)
        gone = [i for i in ids if i not in found]
        if gone:  # the snapshot names chunks the store no longer holds: a write went unnoticed
            raise KeyError(f"chunk(s) {gone[:5]} are no longer in the store")
        self._known.update((row, found[i]) for row, i in zip(missing, ids, strict=True))
        self.fetched += len(missing)


class Column(Sequence):
    """A numpy column read as Python values (int, bool; -1 as None where `optional`), so code written
    for the store's lists (`table.pages[row]`, `table.ords[row]`) gets the same types."""

    def __init__(self, values: np.ndarray, kind: type = int, optional: bool = False) -> None:
        self.values, self._kind, self._optional = values, kind, optional

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, row):  # type: ignore[no-untyped-def]
        if isinstance(row, slice):
            return [self[r] for r in range(len(self))[row]]
        value = self.values[row]
        return None if self._optional and value < 0 else self._kind(value)


class StringTable(Mapping[int, str]):
    """An int → str mapping held as three arrays (sorted keys, byte offsets, UTF-8 bytes), so a
    snapshot maps a quarter of a million titles in milliseconds instead of unpickling a dict; a
    query reads the few it shows."""

    def __init__(self, keys: np.ndarray, offsets: np.ndarray, blob: np.ndarray) -> None:
        self._keys, self._offsets, self._blob = keys, offsets, blob  # not .keys: Mapping has keys()

    @classmethod
    def of(cls, mapping: Mapping[int, str]) -> StringTable:
        keys = np.asarray(sorted(mapping), dtype=np.int64)
        encoded = [mapping[int(k)].encode("utf-8") for k in keys]
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(e) for e in encoded])
        return cls(keys, offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"keys": self._keys, "offsets": self._offsets, "blob": self._blob}

    def __getitem__(self, key: int) -> str:
        i = int(np.searchsorted(self._keys, key))
        if i == len(self._keys) or self._keys[i] != key:
            raise KeyError(key)
        return self._blob[self._offsets[i] : self._offsets[i + 1]].tobytes().decode("utf-8")

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys.tolist())

    def __len__(self) -> int:
        return len(self._keys)


def lazy_table(fetch: Callable[[list[int]], dict[int, str]], columns: dict[str, np.ndarray],
               documents: Mapping[str, Mapping[int, str]]) -> ChunkTable:
    """A ChunkTable over snapshot columns whose texts come from the store when asked for. It has
    no text hashes: those only serve to read vectors, and the snapshot holds the vectors."""
    ids = columns["ids"]
    return ChunkTable(ids=ids, doc_ids=columns["doc_ids"], texts=LazyTexts(fetch, ids),  # type: ignore[arg-type]
                      text_hashes=[], titles=documents["titles"], sources=documents["sources"],  # type: ignore[arg-type]
                      title_sources=documents["title_sources"], ords=Column(columns["ords"]),  # type: ignore[arg-type]
                      pages=Column(columns["pages"], optional=True),  # type: ignore[arg-type]
                      continues=Column(columns["continues"], bool))  # type: ignore[arg-type]


def table_columns(table: ChunkTable) -> dict[str, np.ndarray]:
    """The row-aligned columns a snapshot keeps (pages: -1 for none)."""
    n = len(table)
    return {"ids": np.asarray(table.ids, dtype=np.int64), "doc_ids": np.asarray(table.doc_ids, dtype=np.int64),
            "ords": np.asarray(list(table.ords) or [0] * n, dtype=np.int32),
            "pages": np.asarray([-1 if p is None else p for p in (table.pages or [None] * n)], dtype=np.int32),
            "continues": np.asarray(list(table.continues) or [False] * n, dtype=bool)}
