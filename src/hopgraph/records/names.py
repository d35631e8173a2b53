"""Records of the name-link graph: names of documents, where they are mentioned, the links they make."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


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


# The stored rows are named tuples, not dataclasses: a replica loads every link of the store into
# them each time another process writes (retrieval/database_index.py), 370k links at 100k chunks,
# and a tuple is made several times faster than a frozen dataclass.
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


@dataclass(frozen=True)
class NameGraph:
    """What the store holds of the name-link graph: every name, every link, and what chunks are
    about (empty for a store written before aboutness: a name is then about its whole document)."""

    names: list[StoredName]
    links: list[StoredLink]
    abouts: list[StoredAbout] = field(default_factory=list)
