"""A toy reader from outside hopgraph: a `.toy` file holds one document a line, `title | text`."""

from __future__ import annotations

from pathlib import PurePath

from hopgraph.errors import UnreadableFile
from hopgraph.ingest import readers
from hopgraph.ingest.textfile import decode_text
from hopgraph.records.documents import Document


def read_toy(path: PurePath, data: bytes) -> list[Document]:
    documents = []
    for number, line in enumerate(decode_text(path, data).splitlines(), 1):
        if not line.strip():
            continue
        title, bar, text = line.partition("|")
        if not bar or not title.strip() or not text.strip():
            raise UnreadableFile(path, f"line {number} is not `title | text`")
        documents.append(Document(title=title.strip(), text=text.strip(), source=str(path), title_source="record"))
    return documents


def register() -> None:
    readers.register(".toy", read_toy, "one `title | text` document a line, a toy plugin's")
