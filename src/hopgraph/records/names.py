"""Records of the name-link graph: names of documents, where they are mentioned, the links they make."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Name:
    surface: str
    doc_id: int | None  # the document this name stands for (None: a gazetteer entry with no document)
    kind: str  # "title" | "extracted" | "gazetteer"
    filtered: str = ""  # why this name makes no links ("" = it does)


@dataclass(frozen=True)
class GazetteerEntry:
    name: str
    aliases: tuple[str, ...]
    type: str
    id: str


@dataclass
class GraphRows:
    """Names, mentions and links as one index run writes them: chunk ids (not rows) and positions
    in `names` (the store gives the names their ids)."""

    names: list[Name]
    mentions: list[tuple[int, int]]  # (chunk id, name position)
    links: list[tuple[int, int, int]]  # (source chunk id, target chunk id, name position)


@dataclass(frozen=True)
class StoredName:
    """A name as the store holds it, with its id."""

    id: int
    surface: str
    doc_id: int | None
    filtered: str


@dataclass(frozen=True)
class StoredLink:
    """Chunk → chunk, made by the name with this id."""

    source_chunk: int
    target_chunk: int
    name_id: int


@dataclass(frozen=True)
class NameGraph:
    """What the store holds of the name-link graph: every name and every link."""

    names: list[StoredName]
    links: list[StoredLink]
