"""DOCX files through python-docx (the `docx` extra): paragraphs and table rows in document order.

The title is the core properties' title when set, else a first paragraph styled Title or Heading 1,
else the file name's stem. A paragraph styled Title or Heading N is written as a Markdown heading
("## Findings"), so that answers and previews know it for a heading as they know a Markdown file's:
a one-word heading has no other mark once its style is gone. A table becomes one block, a line per
row with its cells joined by " | " (a merged cell once); text in text boxes, headers, footers and
notes is not read.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopgraph.errors import UnreadableFile
from hopgraph.ingest.libraries import import_extra, parse_errors
from hopgraph.records.documents import Document

HEADING_STYLES = {"Title", "Heading 1"}
_HEADING_LEVEL = re.compile(r"Heading ([1-6])$")
PARAGRAPH_BREAK = "\n\n"  # Word paragraphs are real paragraphs: a blank line ends a sentence


def read_docx(path: Path, data: bytes) -> Document:
    docx = import_extra("docx", "docx", path)
    with parse_errors(path, "DOCX file"):
        document = docx.Document(io.BytesIO(data))
        blocks = [(text, style) for text, style in _blocks(document) if text]
        metadata_title = _core_title(document)
    if not blocks:
        raise UnreadableFile(path, "DOCX has no text")
    text = PARAGRAPH_BREAK.join(_marked(text, style) for text, style in blocks)
    if metadata_title:
        return Document(title=metadata_title, text=text, source=str(path), title_source="metadata")
    first, style = blocks[0]
    if style in HEADING_STYLES and len(first) <= 200:
        return Document(title=first, text=text, source=str(path), title_source="heading")
    return Document(title=path.stem, text=text, source=str(path), title_source="file")


def _marked(text: str, style: str) -> str:
    """A heading paragraph as Markdown writes it ("## Findings"); any other block as it is."""
    level = _HEADING_LEVEL.match(style)
    if style == "Title" or level:
        return "#" * (int(level.group(1)) if level else 1) + " " + text
    return text


def _blocks(document: Any) -> Iterator[tuple[str, str]]:
    """(text, style name) of each paragraph, and (its rows' lines, "table") of each table, in order."""
    for item in document.iter_inner_content():
        if hasattr(item, "rows"):
            yield "\n".join(line for line in map(_row_text, item.rows) if line), "table"
        else:
            style = item.style.name if item.style is not None else ""
            yield item.text.strip(), style or ""


def _row_text(row: Any) -> str:
    cells: list[str] = []
    seen: set[Any] = set()  # the cells' XML elements, kept alive so the same element is the same object
    for cell in row.cells:
        if cell._tc in seen:  # a merged cell is listed once per grid column it spans
            continue
        seen.add(cell._tc)
        text = " ".join(cell.text.split())
        if text:
            cells.append(text)
    return " | ".join(cells)


def _core_title(document: Any) -> str:
    """The core properties' title; "" when the file has none. python-docx invents "Word Document"
    for a file without a core-properties part, so that part's presence is checked first."""
    from docx.opc.constants import RELATIONSHIP_TYPE

    try:
        document.part.package.part_related_by(RELATIONSHIP_TYPE.CORE_PROPERTIES)
    except KeyError:
        return ""
    return " ".join((document.core_properties.title or "").split())
