"""Records of the name-link graph: names of documents, where they are mentioned, the links they make."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np


@dataclass
class Name:
    surface: str
    doc_id: int | None  # the document this name stands for (None: a gazetteer entry with no document)
    kind: str  # "title" | "text" | "gazetteer"
    filtered: str = ""  # why this name makes no links ("" = it does)
    about: dict[int, float] = field(default_factory=dict)  # chunk row → aboutness (linkgraph/links.py)


@dataclass(frozen=True)
class GazetteerEntry:
    name: str
    aliases: tuple[str, ...]
    type: str
    id: str


@dataclass
class GraphRows:
    """Names, what they are about, mentions and links as one index run writes them: chunk ids (not
    rows) and positions in `names` (the store gives the names their ids)."""

    names: list[Name]
    mentions: list[tuple[int, int]]  # (chunk id, name position)
    links: list[tuple[int, int, int, float]]  # (source chunk id, target chunk id, name position, weight)
    abouts: list[tuple[int, int, float]] = field(default_factory=list)  # (chunk id, name position, weight)


# The stored rows are named tuples, not dataclasses: a tuple is made several times faster, and a
# replica reloads every name each time another process writes (retrieval/database_index.py).
class StoredName(NamedTuple):
    """A name as the store holds it, with its id."""

    id: int
    surface: str
    doc_id: int | None
    filtered: str


class StoredLink(NamedTuple):
    """Chunk → chunk, made by the name with this id; `weight` is how much the target is about it."""

    source_chunk: int
    target_chunk: int
    name_id: int
    weight: float = 1.0


class StoredAbout(NamedTuple):
    """The chunk is about the name with this id, this much (1.0: its document's title)."""

    chunk_id: int
    name_id: int
    weight: float


@dataclass(frozen=True, eq=False)
class LinkColumns:
    """Every stored link as four columns. A replica reloads all of them each time another process
    writes: 370k links at 100k chunks, where a named tuple per link cost a second of the reload and
    building the matrices from the columns costs none (retrieval/index.py `_link_rows`)."""

    source_chunk: np.ndarray  # int64
    target_chunk: np.ndarray  # int64
    name_id: np.ndarray  # int64
    weight: np.ndarray  # float64

    @classmethod
    def of(cls, rows: Sequence[tuple[int, int, int, float]]) -> LinkColumns:
        """From (source chunk, target chunk, name id, weight) rows, as a database returns them."""
        table = np.array(rows, dtype=np.float64).reshape(-1, 4)  # chunk and name ids < 2**53: exact
        ids = table[:, :3].astype(np.int64)
        return cls(ids[:, 0], ids[:, 1], ids[:, 2], table[:, 3].copy())

    def __len__(self) -> int:
        return len(self.source_chunk)

    def __eq__(self, other: object) -> bool:  # row for row, with itself or a list of rows
        return isinstance(other, LinkColumns | list | tuple) and list(self) == list(other)

    def __iter__(self) -> Iterator[StoredLink]:
        for row in zip(self.source_chunk.tolist(), self.target_chunk.tolist(), self.name_id.tolist(),
                       self.weight.tolist(), strict=True):
            yield StoredLink._make(row)


@dataclass(frozen=True, eq=False)
class AboutColumns:
    """Every stored aboutness row as three columns (one per chunk and name: 100k at 100k chunks)."""

    chunk_id: np.ndarray  # int64
    name_id: np.ndarray  # int64
    weight: np.ndarray  # float64

    @classmethod
    def of(cls, rows: Sequence[tuple[int, int, float]]) -> AboutColumns:
        """From (chunk id, name id, weight) rows."""
        table = np.array(rows, dtype=np.float64).reshape(-1, 3)
        ids = table[:, :2].astype(np.int64)
        return cls(ids[:, 0], ids[:, 1], table[:, 2].copy())

    def __len__(self) -> int:
        return len(self.chunk_id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AboutColumns | list | tuple) and list(self) == list(other)

    def __iter__(self) -> Iterator[StoredAbout]:
        for row in zip(self.chunk_id.tolist(), self.name_id.tolist(), self.weight.tolist(), strict=True):
            yield StoredAbout._make(row)


@dataclass(frozen=True)
class NameGraph:
    """What the store holds of the name-link graph: every name, every link, and what chunks are
    about (empty for a store written before aboutness: a name is then about its whole document)."""

    names: list[StoredName]
    links: LinkColumns
    abouts: AboutColumns = field(default_factory=lambda: AboutColumns.of([]))
