"""Read .txt, .md, .html, .json and .jsonl files into `Document`s, with errors that name the file."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup

from hopgraph.errors import InputError
from hopgraph.records.documents import Document

TEXT_SUFFIXES = {".txt", ".md", ".markdown"}
HTML_SUFFIXES = {".html", ".htm"}
JSON_SUFFIXES = {".json", ".jsonl"}
SUPPORTED = TEXT_SUFFIXES | HTML_SUFFIXES | JSON_SUFFIXES


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files named directly, plus the supported files inside named folders (sorted, recursive)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED))
        elif path.suffix.lower() not in SUPPORTED:
            raise InputError(f"{path}: unsupported file type {path.suffix or '(none)'}; "
                             f"use one of {', '.join(sorted(SUPPORTED))}")
        else:
            files.append(path)
    return files


def read_text_file(path: Path) -> str:
    """The file's text; unreadable, empty, binary or non-UTF-8 files are errors that name the file."""
    try:
        data = path.read_bytes()
    except OSError as err:  # permission denied, a broken disk, a file that vanished since listing
        raise InputError(f"{path}: cannot read the file ({err.strerror or err})") from None
    if not data.strip():
        raise InputError(f"{path}: file is empty")
    if b"\x00" in data[:8192]:
        raise InputError(f"{path}: looks like a binary file (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None


def read_documents(path: Path) -> list[Document]:
    """All documents in one file, by its suffix."""
    text = read_text_file(path)
    suffix = path.suffix.lower()
    if suffix in JSON_SUFFIXES:
        return list(_dedupe(_json_documents(_load_json(path, text, suffix == ".jsonl"), path)))
    if suffix in HTML_SUFFIXES:
        return [_html_document(text, path)]
    return [Document(title=_text_title(text, path), text=text.strip(), source=str(path))]


def _text_title(text: str, path: Path) -> str:
    for line in text.splitlines()[:5]:
        if line.startswith("# ") and line[2:].strip():
            return line[2:].strip()
    return path.stem


def _html_document(html: str, path: Path) -> Document:
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    title = soup.title.get_text(strip=True) if soup.title else path.stem
    body = soup.body or soup
    text = "\n".join(line.strip() for line in body.get_text("\n").splitlines() if line.strip())
    if not text:
        raise InputError(f"{path}: HTML has no text")
    return Document(title=title or path.stem, text=text, source=str(path))


def _load_json(path: Path, text: str, lines: bool) -> list[Any]:
    if lines:
        return [_parse_json(path, line, number) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    data = _parse_json(path, text, 1)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of records, got {type(data).__name__}")
    return data


def _parse_json(path: Path, text: str, first_line: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        line = first_line + err.lineno - 1
        raise InputError(f"{path}: malformed JSON at line {line} column {err.colno}: {err.msg}") from None


def _json_documents(records: list[Any], path: Path) -> Iterator[Document]:
    """HotpotQA records (their context paragraphs) or plain {title, text} objects."""
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise InputError(f"{path}: record {i} is not a JSON object")
        if "context" in record:
            yield from hotpot_paragraphs(record, str(path))
        elif isinstance(record.get("title"), str) and isinstance(record.get("text"), str):
            yield Document(title=record["title"], text=record["text"], source=str(path))
        else:
            raise InputError(f"{path}: record {i} is neither a HotpotQA record (context) "
                             f"nor a {{title, text}} object")


def hotpot_paragraphs(record: dict[str, Any], source: str) -> Iterator[Document]:
    """The context paragraphs of one HotpotQA-format record, one document per title."""
    for pair in record["context"]:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], list)):
            raise InputError(f"{source}: record {record.get('_id', '?')} has a malformed context entry")
        title, sentences = pair
        yield Document(title=title, text=" ".join(s.strip() for s in sentences), source=source)


def _dedupe(docs: Iterable[Document]) -> Iterator[Document]:
    """One document per title; the first text wins (pooled QA sets repeat paragraphs)."""
    seen: set[str] = set()
    for doc in docs:
        if doc.title not in seen and doc.text.strip():
            seen.add(doc.title)
            yield doc
