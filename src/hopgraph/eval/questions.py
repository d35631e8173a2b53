"""The questions of an evaluation: HotpotQA-format records, and the corpus pooled from their paragraphs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopgraph.errors import InputError
from hopgraph.ingest.readers import hotpot_paragraphs, read_text_file
from hopgraph.records.documents import Document

REQUIRED = ("question", "answer", "type", "supporting_facts", "context")


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    answer: str
    type: str
    gold_titles: frozenset[str]


def load_questions(path: Path) -> tuple[list[Question], list[dict[str, Any]], str]:
    """Questions, the raw records, and the file's content hash (the cache key)."""
    text = read_text_file(path)
    try:
        if path.suffix.lower() == ".jsonl":
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            records = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: malformed JSON at line {err.lineno} column {err.colno}: {err.msg}") from None
    if not isinstance(records, list) or not records:
        raise InputError(f"{path}: expected a non-empty JSON list of HotpotQA-format records")
    questions = []
    for i, record in enumerate(records):
        missing = [key for key in REQUIRED if not isinstance(record, dict) or key not in record]
        if missing:
            raise InputError(f"{path}: record {i} lacks {', '.join(missing)} (HotpotQA format needed)")
        questions.append(Question(str(record.get("_id", i)), record["question"], str(record["answer"]),
                                  record["type"], frozenset(t for t, _ in record["supporting_facts"])))
    return questions, records, hashlib.sha256(text.encode()).hexdigest()


def pooled_corpus(records: Sequence[dict[str, Any]], source: str) -> list[Document]:
    """The unique context paragraphs of all records, one document per title (first text wins)."""
    docs: dict[str, Document] = {}
    for record in records:
        for doc in hotpot_paragraphs(record, source):
            docs.setdefault(doc.title, doc)
    return list(docs.values())
