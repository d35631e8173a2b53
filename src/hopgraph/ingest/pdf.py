"""PDF files through pypdf (the `pdf` extra): the text layer page by page, so a chunk knows its page.

The title is the document information's /Title when it has one, else the file name's stem. An
encrypted PDF opens only when its user password is empty (as a viewer would open it); a PDF
whose pages hold no text (a scan) is unreadable: hopgraph does no OCR.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from hopgraph.errors import UnreadableFile
from hopgraph.ingest.libraries import import_extra, parse_errors
from hopgraph.records.documents import Document

PAGE_BREAK = "\n\n"  # between two pages' texts: a blank line also ends a sentence (text/sentences)


def read_pdf(path: Path, data: bytes) -> Document:
    pypdf = import_extra("pypdf", "pdf", path)
    with parse_errors(path, "PDF", quiet_logger="pypdf"):
        reader = _open(pypdf, path, data)
        texts = [page.extract_text() or "" for page in reader.pages]
        title = _metadata_title(reader)
    text, pages = join_pages(texts)
    if not text:
        raise UnreadableFile(path, f"PDF has no text layer on any of its {len(texts)} page(s) "
                                   f"(a scan? hopgraph does no OCR)")
    if title:
        return Document(title=title, text=text, source=str(path), title_source="metadata", pages=pages)
    return Document(title=path.stem, text=text, source=str(path), title_source="file", pages=pages)


def _open(pypdf: Any, path: Path, data: bytes) -> Any:
    """A reader whose pages can be read; an encrypted file opens only with the empty password."""
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnreadableFile(path, "encrypted PDF: it needs a password to open")
    except pypdf.errors.DependencyError as err:  # AES without the `cryptography` package
        raise UnreadableFile(path, f"encrypted PDF that pypdf cannot open here ({err})") from None
    return reader


def _metadata_title(reader: Any) -> str:
    """The /Title of the document information, stripped; "" when absent, empty or not text."""
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    return " ".join(title.split()) if isinstance(title, str) else ""


def join_pages(texts: list[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The pages' texts as one text, and where each page with text starts in it (offset, page
    number from 1). A page without text adds nothing, but the pages after it keep their numbers."""
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    offset = 0
    for number, raw in enumerate(texts, start=1):
        page = raw.strip()
        if not page:
            continue
        if parts:
            offset += len(PAGE_BREAK)
        starts.append((offset, number))
        parts.append(page)
        offset += len(page)
    return PAGE_BREAK.join(parts), tuple(starts)
