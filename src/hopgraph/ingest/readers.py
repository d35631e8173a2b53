"""File readers by suffix — the one registry of them — and the built-in ones: text, Markdown, HTML,
JSON, JSON Lines, PDF and Word.

The folder walk, `hopgraph index --help`, the HTTP upload's description and the messages about an
unsupported file all read the registry, so adding a format is one module with a function
`(path, bytes) -> [Document]` and one `register(...)` call (a plugin calls it from its entry point:
hopgraph/plugins.py).

A file that cannot be read raises `UnreadableFile` naming the file and the reason; an index run
skips it and goes on (ingest/pipeline.read_paths). Every reader records where a title came from.
A text or Markdown file over `STREAM_BYTES` is not held: its document reads it again when needed
(ingest/textfile.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from bs4 import BeautifulSoup

from hopgraph.errors import HopgraphError, InputError, UnreadableFile
from hopgraph.ingest import sync, textfile
from hopgraph.ingest.pdf import read_pdf
from hopgraph.ingest.word import read_docx
from hopgraph.records.documents import Document

ReadBytes = Callable[[PurePath, bytes], list[Document]]  # a file's bytes → its documents, read by its suffix


@dataclass(frozen=True)
class Reader:
    suffix: str  # lower case, with its dot: `.md`
    read: ReadBytes
    description: str
    streams: bool = False  # text read block by block when the file is over textfile.STREAM_BYTES


_READERS: dict[str, Reader] = {}


def register(suffixes: str | Sequence[str], read: ReadBytes, description: str, streams: bool = False) -> None:
    """Read files with these suffixes (`.toy`, or several sharing one reader) with `read`, which gets
    the file's bytes (never empty) and the path that names it, and raises `UnreadableFile` for a file
    it cannot read. `streams`: the reader takes UTF-8 text, and a big file is read block by block as
    a text file is (the document's title from its `# ` heading or file name)."""
    for suffix in [suffixes] if isinstance(suffixes, str) else suffixes:
        if not (suffix.startswith(".") and len(suffix) > 1 and suffix == suffix.lower()):
            raise HopgraphError(f"cannot register a reader for {suffix!r}: a suffix is lower case with its dot, "
                                "e.g. '.txt'")
        if suffix in _READERS:
            raise HopgraphError(f"cannot register a reader for {suffix!r}: it has one already")
        _READERS[suffix] = Reader(suffix, read, description, streams)


def reader_for(path: PurePath) -> Reader | None:
    return _READERS.get(path.suffix.lower())


def supported(path: PurePath) -> bool:
    return reader_for(path) is not None


def suffixes() -> list[str]:
    """Every suffix a reader is registered for, sorted (what the errors list)."""
    return sorted(_READERS)


def described() -> str:
    """The formats for help texts, in the order they were registered, suffixes that share a reader's
    description together: `.txt .md .markdown (text or Markdown), .html .htm (HTML), …`."""
    groups: dict[str, list[str]] = {}
    for reader in _READERS.values():
        groups.setdefault(reader.description, []).append(reader.suffix)
    return ", ".join(f"{' '.join(suffixes)} ({description})" for description, suffixes in groups.items())


def _unsupported(suffix: str) -> str:
    return f"unsupported file type {suffix or '(none)'}; use one of {', '.join(suffixes())}"


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
        elif not supported(path):
            raise InputError(f"{path}: {_unsupported(path.suffix)}")
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
    return textfile.decode_text(path, read_file_bytes(path))


def read_documents(path: Path) -> list[Document]:
    """All documents in one file, by its suffix."""
    reader = reader_for(path)
    if reader is not None and reader.streams and _file_size(path) > textfile.STREAM_BYTES:
        return [_text_document(path, textfile.head_and_check(path))]
    return documents_in_bytes(path, read_file_bytes(path))


def documents_in_bytes(path: PurePath, data: bytes) -> list[Document]:
    """All documents in a file's bytes, read by the suffix of `path`, which only names them: nothing
    is read from that path (the HTTP API's uploads are bytes with a name, never a file to open)."""
    reader = reader_for(path)
    if reader is None:
        raise UnreadableFile(path, _unsupported(path.suffix.lower()))
    if not data.strip():
        raise UnreadableFile(path, "file is empty")
    return reader.read(path, data)


def _text_documents(path: PurePath, data: bytes) -> list[Document]:
    text = textfile.decode_text(path, data)
    return [_text_document(path, text, text.strip())]


def _html_documents(path: PurePath, data: bytes) -> list[Document]:
    return [_html_document(textfile.decode_text(path, data), path)]


def _json_records(lines: bool) -> ReadBytes:
    def read(path: PurePath, data: bytes) -> list[Document]:
        text = textfile.decode_text(path, data)
        return list(_dedupe(_json_documents(_load_json(path, text, lines), path)))
    return read


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


register((".txt", ".md", ".markdown"), _text_documents, "text or Markdown", streams=True)
register((".html", ".htm"), _html_documents, "HTML")
register(".json", _json_records(lines=False), "a JSON list of {title, text} or HotpotQA records")
register(".jsonl", _json_records(lines=True), "one such record a line")
register(".pdf", lambda path, data: [read_pdf(path, data)], "PDF, with the pdf extra")  # imports pypdf when used
register(".docx", lambda path, data: [read_docx(path, data)], "Word, with the docx extra")
