"""Read .txt, .md, .html, .json, .jsonl, .pdf and .docx files into `Document`s.

A file that cannot be read raises `UnreadableFile` naming the file and the reason; an index run
skips it and goes on (ingest/pipeline.read_paths). Every reader records where a title came from.
A text or Markdown file over `STREAM_BYTES` is not held: its document reads it again when needed
(ingest/textfile.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePath
from typing import Any

from bs4 import BeautifulSoup

from hopgraph.errors import InputError, UnreadableFile
from hopgraph.ingest import sync, textfile
from hopgraph.ingest.pdf import read_pdf
from hopgraph.ingest.word import read_docx
from hopgraph.records.documents import Document

TEXT_SUFFIXES = {".txt", ".md", ".markdown"}
HTML_SUFFIXES = {".html", ".htm"}
JSON_SUFFIXES = {".json", ".jsonl"}
BINARY_READERS = {".pdf": read_pdf, ".docx": read_docx}  # each imports its optional library when used
SUPPORTED = TEXT_SUFFIXES | HTML_SUFFIXES | JSON_SUFFIXES | set(BINARY_READERS)


def supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files named directly, plus the supported files inside named folders (sorted, recursive; no
    link out of a folder followed: ingest/sync.py `folder_files`, which `index` calls itself)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
        if path.is_dir():
            files.extend(file for file, _ in sync.folder_files(path, supported).files)
        elif path.suffix.lower() not in SUPPORTED:
            raise InputError(f"{path}: unsupported file type {path.suffix or '(none)'}; "
                             f"use one of {', '.join(sorted(SUPPORTED))}")
        else:
            files.append(path)
    return files


def read_file_bytes(path: Path) -> bytes:
    """The file's bytes; a file that cannot be read or holds nothing but whitespace is unreadable."""
    try:
        data = path.read_bytes()
    except OSError as err:  # permission denied, a broken disk, a file that vanished since listing
        raise UnreadableFile(path, f"cannot read the file ({err.strerror or err})") from None
    if not data.strip():
        raise UnreadableFile(path, "file is empty")
    return data


def read_text_file(path: Path) -> str:
    """The file's text; unreadable, empty, binary or non-UTF-8 files are errors that name the file."""
    return _decode(path, read_file_bytes(path))


def _decode(path: PurePath, data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise UnreadableFile(path, "looks like a binary file (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UnreadableFile(path, f"not UTF-8 text ({err.reason} at byte {err.start})") from None


def read_documents(path: Path) -> list[Document]:
    """All documents in one file, by its suffix."""
    if path.suffix.lower() in TEXT_SUFFIXES and _file_size(path) > textfile.STREAM_BYTES:
        return [_text_document(path, textfile.head_and_check(path))]
    return documents_in_bytes(path, read_file_bytes(path))


def documents_in_bytes(path: PurePath, data: bytes) -> list[Document]:
    """All documents in a file's bytes, read by the suffix of `path`, which only names them: nothing
    is read from that path (the HTTP API's uploads are bytes with a name, never a file to open)."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise UnreadableFile(path, f"unsupported file type {suffix or '(none)'}; use one of "
                                   f"{', '.join(sorted(SUPPORTED))}")
    if not data.strip():
        raise UnreadableFile(path, "file is empty")
    if suffix in BINARY_READERS:
        return [BINARY_READERS[suffix](path, data)]
    text = _decode(path, data)
    if not text.strip():  # a BOM, U+2028 or \x1c alone: bytes that decode to nothing but spaces
        raise UnreadableFile(path, "file is empty (only spaces and separators)")
    if suffix in JSON_SUFFIXES:
        return list(_dedupe(_json_documents(_load_json(path, text, suffix == ".jsonl"), path)))
    if suffix in HTML_SUFFIXES:
        return [_html_document(text, path)]
    return [_text_document(path, text, text.strip())]


def _text_document(path: PurePath, head: str, text: str | None = None) -> Document:
    """A text or Markdown document titled by its `# ` heading (looked for in `head`) or file name;
    without `text`, one that reads the file again when its text is needed."""
    heading = _text_heading(head)
    title, title_source = (heading, "heading") if heading else (path.stem, "file")
    if text is None:
        return Document(title=title, text="", source=str(path), title_source=title_source,
                        reread=lambda: textfile.text_blocks(path))
    return Document(title=title, text=text, source=str(path), title_source=title_source)


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError as err:
        raise UnreadableFile(path, f"cannot read the file ({err.strerror or err})") from None


def _text_heading(text: str) -> str:
    """A Markdown `# ` heading among the first five lines, or ""."""
    for line in text.splitlines()[:5]:
        if line.startswith("# ") and line[2:].strip():
            return line[2:].strip()
    return ""


def _html_document(html: str, path: PurePath) -> Document:
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    title = soup.title.get_text(strip=True) if soup.title else ""
    body = soup.body or soup
    text = "\n".join(line.strip() for line in body.get_text("\n").splitlines() if line.strip())
    if not text:
        raise UnreadableFile(path, "HTML has no text")
    if title:
        return Document(title=title, text=text, source=str(path), title_source="html")
    return Document(title=path.stem, text=text, source=str(path), title_source="file")


def _load_json(path: PurePath, text: str, lines: bool) -> list[Any]:
    if lines:
        return [_parse_json(path, line, number) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    data = _parse_json(path, text, 1)
    if not isinstance(data, list):
        raise UnreadableFile(path, f"expected a JSON list of records, got {type(data).__name__}")
    return data


def _parse_json(path: PurePath, text: str, first_line: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        line = first_line + err.lineno - 1
        raise UnreadableFile(path, f"malformed JSON at line {line} column {err.colno}: {err.msg}") from None


def _json_documents(records: list[Any], path: PurePath) -> Iterator[Document]:
    """HotpotQA records (their context paragraphs) or plain {title, text} objects."""
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise UnreadableFile(path, f"record {i} is not a JSON object")
        if "context" in record:
            yield from hotpot_paragraphs(record, str(path))
        elif isinstance(record.get("title"), str) and isinstance(record.get("text"), str):
            yield Document(title=record["title"], text=record["text"], source=str(path), title_source="record")
        else:
            raise UnreadableFile(path, f"record {i} is neither a HotpotQA record (context) "
                                       f"nor a {{title, text}} object")


def hotpot_paragraphs(record: dict[str, Any], source: str) -> Iterator[Document]:
    """The context paragraphs of one HotpotQA-format record, one document per title."""
    for pair in record["context"]:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], list)):
            raise UnreadableFile(source, f"record {record.get('_id', '?')} has a malformed context entry")
        title, sentences = pair
        yield Document(title=title, text=" ".join(s.strip() for s in sentences), source=source,
                       title_source="record")


def _dedupe(docs: Iterable[Document]) -> Iterator[Document]:
    """One document per title; the first text wins (pooled QA sets repeat paragraphs)."""
    seen: set[str] = set()
    for doc in docs:
        if doc.title not in seen and doc.text.strip():
            seen.add(doc.title)
            yield doc
