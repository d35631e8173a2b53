"""Records of the name-link graph: names of documents, where they are mentioned, the links they make."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Self

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


class _Columns:
    """Stored rows as numpy columns, one per field of `ROW` (ids int64, the last field, a weight,
    float64): a replica reloads every link and aboutness row each time another process writes, 370k
    links at 100k chunks, where a named tuple per row cost a second of the reload and building the
    matrices from the columns costs none (retrieval/index.py `_link_rows`). Iterating gives the rows."""

    ROW: type[NamedTuple]

    @classmethod
    def of(cls, rows: Sequence[tuple[Any, ...]]) -> Self:
        """From rows in `ROW`'s field order, as a database returns them."""
        width = len(cls.ROW._fields)
        table = np.array(rows, dtype=np.float64).reshape(-1, width)  # chunk and name ids < 2**53: exact
        ids = table[:, :-1].astype(np.int64)
        return cls(*(ids[:, i] for i in range(width - 1)), table[:, -1].copy())  # type: ignore[call-arg]

    def __len__(self) -> int:
        return len(getattr(self, self.ROW._fields[0]))

    def __eq__(self, other: object) -> bool:  # row for row, with itself or a list of rows
        return isinstance(other, type(self) | list | tuple) and list(self) == list(other)

    def __iter__(self) -> Iterator[Any]:
        columns = [getattr(self, name).tolist() for name in self.ROW._fields]
        return map(self.ROW._make, zip(*columns, strict=True))


@dataclass(frozen=True, eq=False)
class LinkColumns(_Columns):
    """Every stored link (`StoredLink`) as columns."""

    ROW = StoredLink
    source_chunk: np.ndarray
    target_chunk: np.ndarray
    name_id: np.ndarray
    weight: np.ndarray


@dataclass(frozen=True, eq=False)
class AboutColumns(_Columns):
    """Every stored aboutness row (`StoredAbout`) as columns (100k at 100k chunks)."""

    ROW = StoredAbout
    chunk_id: np.ndarray
    name_id: np.ndarray
    weight: np.ndarray


@dataclass(frozen=True)
class NameGraph:
    """What the store holds of the name-link graph: every name, every link, and what chunks are
    about (empty for a store written before aboutness: a name is then about its whole document)."""

    names: list[StoredName]
    links: LinkColumns
    abouts: AboutColumns = field(default_factory=lambda: AboutColumns.of([]))
