"""Records of the document side: documents and chunks as read, and as the store holds them."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Literal, get_args

import numpy as np


def utc_now() -> str:
    """The timestamp every record carries: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


# Where a document's title came from. The first four are names someone gave the document (PDF or
# DOCX metadata, a Markdown `# ` or DOCX Title/Heading 1 line, an HTML <title>, a record's title
# field or a title handed in by code); "file" is the file name's stem, a stand-in that is no name.
TitleSource = Literal["metadata", "heading", "html", "record", "file"]
TITLE_SOURCES: tuple[str, ...] = get_args(TitleSource)


@dataclass(frozen=True)
class Document:
    """One source document as read from disk, before chunking.

    `pages`: for paged formats (PDF), (character offset in `text`, page number from 1) where each
    page's text starts, in order; empty for formats without pages.

    `reread`: a big text file's text is not held: `text` is "" and `reread()` reads the text again
    from the file, block by block. Whatever needs the text reads it with `blocks()`."""

    title: str
    text: str
    source: str
    title_source: TitleSource = "record"  # code that builds a Document names it, as a record does
    pages: tuple[tuple[int, int], ...] = ()
    reread: Callable[[], Iterator[str]] | None = field(default=None, compare=False, repr=False)

    def blocks(self) -> Iterator[str]:
        """The text in blocks that join into it: `text` whole, or a big file's text read again."""
        return self.reread() if self.reread is not None else iter((self.text,))

    def page_at(self, offset: int) -> int | None:
        """The page holding the character at `offset`, or None for a document without pages."""
        if not self.pages:
            return None
        starts = [start for start, _ in self.pages]
        return self.pages[max(bisect_right(starts, offset) - 1, 0)][1]


@dataclass(frozen=True)
class Skip:
    """A file an index run could not read, and why; the run goes on without it."""

    path: str
    reason: str


@dataclass(frozen=True)
class Chunk:
    """A piece of a document; `ord` is its position within the document. `continues`: it starts
    inside a paragraph an earlier chunk began, so it is about what that paragraph is about."""

    doc_key: str
    ord: int
    text: str
    n_tokens: int
    page: int | None = None  # the page the chunk starts on (paged formats only)
    continues: bool = False


@dataclass(frozen=True)
class StoredDocument:
    id: int
    source: str
    title: str
    content_hash: str
    title_source: str = "record"
    # when its current text was written (UTC, ISO 8601): set when added, renewed when updated; not
    # part of its identity, so two reads of an unchanged store compare equal whatever they hold here
    added_at: str = field(default="", compare=False)


ActiveDocs = dict[tuple[str, str], StoredDocument]  # documents not withdrawn, by (source, title)


def cite(title: str, source: str, title_source: str, ord_: int, page: int | None) -> str:
    """A readable place for a chunk: the file name (or the title, for records) plus `#p<page>` for a
    paged document, else `#<n>` for its n-th chunk (counted from 1, as pages are)."""
    where = title if title_source == "record" or not source else PurePath(source).name
    return f"{where}#p{page}" if page is not None else f"{where}#{ord_ + 1}"


def rows_by_document(doc_ids: np.ndarray) -> dict[int, list[int]]:
    """Document id → the chunk rows of that document, in row order."""
    rows: dict[int, list[int]] = {}
    for row, doc in enumerate(doc_ids.tolist()):
        rows.setdefault(doc, []).append(row)
    return rows


@dataclass
class ChunkTable:
    """The active chunks, row-aligned: row i of every array is the same chunk."""

    ids: np.ndarray
    doc_ids: np.ndarray
    texts: list[str]
    text_hashes: list[str]
    titles: dict[int, str]  # document id → title
    sources: dict[int, str] = field(default_factory=dict)  # document id → source (file path)
    title_sources: dict[int, str] = field(default_factory=dict)  # document id → where its title came from
    ords: list[int] = field(default_factory=list)  # row → position of the chunk in its document
    pages: list[int | None] = field(default_factory=list)  # row → the page it starts on (PDF), else None
    continues: list[bool] = field(default_factory=list)  # row → it continues an earlier chunk's paragraph

    def __len__(self) -> int:
        return len(self.ids)

    def row_of(self) -> dict[int, int]:
        return {chunk_id: row for row, chunk_id in enumerate(self.ids.tolist())}

    def source_of_row(self, row: int) -> str:
        """Where a reader finds the chunk: `report.pdf#p3`, `notes.md#2` (the 2nd chunk), or for a
        record among many in one file (JSON, HotpotQA) its title: `Adriana Trigiani#1`."""
        doc = int(self.doc_ids[row])
        page = self.pages[row] if row < len(self.pages) else None
        ord_ = self.ords[row] if row < len(self.ords) else 0
        return cite(self.titles[doc], self.sources.get(doc, ""), self.title_sources.get(doc, "record"), ord_, page)


@dataclass
class DocumentChange:
    """What one index run changes: documents to add or replace (with chunks), ids to withdraw."""

    # (document, content hash, [(chunk, text hash)]): a list, or a big file's chunks in a temporary
    # file (ingest/spill.py), read in order as often as needed
    upserts: list[tuple[Document, str, Collection[tuple[Chunk, str]]]] = field(default_factory=list)
    withdrawn: list[int] = field(default_factory=list)
    # (document id, title source): same text, but its title now comes from elsewhere; set in place,
    # because re-chunking would drop the chunks' extracted facts for a change of one label
    retitled: list[tuple[int, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.upserts and not self.withdrawn and not self.retitled


@dataclass(frozen=True)
class RunRecord:
    """One line of the `runs` log; `stats` is called after the graph is built, inside the transaction."""

    command: str
    started_at: str
    stats: Callable[[], str]
