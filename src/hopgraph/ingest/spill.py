"""A document's chunks kept in a temporary file, not in memory, between chunking and the write.

An index run reads its chunks three times — to embed what has no vector, for the first chunk's
names, and to write them in the one transaction that changes the index — and a 200 MB file's
chunks are 250 MB of text. `SpilledChunks` writes them out as they are made and reads them back
in order, as often as needed; the file is gone when the object is (or at `close`).
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Collection, Iterable, Iterator
from typing import BinaryIO

from hopgraph.records.documents import Chunk

Row = tuple[Chunk, str]  # a chunk and the hash of its text


class SpilledChunks(Collection[Row]):
    def __init__(self, rows: Iterable[Row]) -> None:
        # Open for as long as the object lives (a `with` would close it before the chunks are used).
        self._file: BinaryIO = tempfile.TemporaryFile(prefix="hopgraph-chunks-")  # noqa: SIM115
        self._count = 0
        for row in rows:
            pickle.dump(row, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._count += 1
        self._file.flush()

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Row]:
        # Each reader keeps its own place, so two loops over the chunks cannot disturb each other.
        offset = 0
        for _ in range(self._count):
            self._file.seek(offset)
            row = pickle.load(self._file)
            offset = self._file.tell()
            yield row

    def __contains__(self, row: object) -> bool:
        return any(row == mine for mine in self)

    def close(self) -> None:
        self._file.close()
