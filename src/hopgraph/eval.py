"""Multi-hop retrieval evaluation on HotpotQA-format records, bucketed by question type.

both_found: every gold supporting title is among the top-k hits' titles; recall: the mean share of
gold titles found; answer_in: the answer string occurs (case-insensitively) in the top-k text.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.ingest.pipeline import chunking_key
from hopgraph.ingest.readers import hotpot_paragraphs, read_documents, read_text_file
from hopgraph.linkgraph.naming import check_source
from hopgraph.progress import bar_over
from hopgraph.query.extractive import extractive_answer
from hopgraph.query.local import LocalBudget
from hopgraph.records.documents import Document
from hopgraph.retrieval.methods import METHODS, parse_method
from hopgraph.retrieval.router import AUTO

LOCAL = "local"  # the knowledge-graph method: local search over the concept graph
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


def default_store(data_hash: str, corpus_hash: str, settings: Settings) -> str:
    """A cache file keyed by the data, the corpus and the settings that shape the index: chunking,
    embedder and where names come from (a titled and a text-named index of the same data are two
    files). The graph itself is rebuilt in place when only name settings change."""
    key = hashlib.sha256(f"{data_hash}{corpus_hash}{chunking_key(settings)}{settings.embedder}"
                         f"{settings.embed_model}names:{settings.names_from}".encode()).hexdigest()[:16]
    root = Path(os.environ.get("HOPGRAPH_CACHE", user_cache_dir("hopgraph")))
    return str(root / "eval" / f"{key}.db")


def score_retrieval(question: Question, titles: list[str], texts: list[str]) -> dict[str, float]:
    found = question.gold_titles & set(titles)
    return {"both_found": float(found == question.gold_titles),
            "answer_in": float(question.answer.lower() in " ".join(texts).lower()),
            "recall": len(found) / max(1, len(question.gold_titles))}


def summarise(rows: list[dict[str, float]]) -> dict[str, float | int]:
    keys = [k for k in ("both_found", "answer_in", "recall", "answer_in_extract") if rows and k in rows[0]]
    return {"n": len(rows), **{key: round(statistics.fmean(r[key] for r in rows), 4) for key in keys}}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def evaluate_method(hg: HopGraph, questions: Sequence[Question], method: str, top: int,
                    quiet: bool, answers: bool = False) -> dict[str, Any]:
    """Retrieval scores per question type; with `answers`, also whether the gold answer is inside
    the offline extractive answer of the hits (`answer_in_extract`, beside `answer_in`: inside the
    top-k text). Latency is the retrieval's alone."""
    by_type: dict[str, list[dict[str, float]]] = defaultdict(list)
    latencies = []
    for question in bar_over(questions, method, quiet, total=len(questions)):
        started = time.perf_counter()
        if method == LOCAL:
            retrieval = hg.local(question.text, LocalBudget(top=top)).retrieval
        else:
            retrieval = hg.search(question.text, method=method, top=top)
        latencies.append((time.perf_counter() - started) * 1000)
        row = score_retrieval(question, [h.title for h in retrieval.hits], [h.text for h in retrieval.hits])
        if answers:
            extract = extractive_answer(question.text, retrieval.hits, hg.embedder.embed).text
            row["answer_in_extract"] = float(question.answer.lower() in extract.lower())
        by_type[question.type].append(row)
    everything = [row for rows in by_type.values() for row in rows]
    return {"by_type": {t: summarise(rows) for t, rows in sorted(by_type.items())},
            "all": summarise(everything),
            "ms_per_query": {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95)}}


def run_eval(data: Path, corpus: Path | None = None, methods: Sequence[str] = METHODS, top: int = 5,
             limit: int | None = None, store: str | None = None, settings: Settings | None = None,
             quiet: bool = True, answers: bool = False) -> dict[str, Any]:
    """Index the corpus (cached) and score every method on every question; the JSON of the issue.
    `answers` also scores the offline extractive answers (`evaluate_method`).

    Names come from `settings.names_from`, exactly as `hopgraph index` makes them (no eval-only
    path); titles still decide what a gold paragraph is."""
    for method in methods:
        if method not in (LOCAL, AUTO):
            parse_method(method)
    settings = settings or Settings()
    check_source(settings.names_from)
    questions, records, data_hash = load_questions(data)
    if corpus:
        docs = read_documents(corpus.resolve())  # one source whatever the working folder
        corpus_hash = hashlib.sha256(read_text_file(corpus).encode()).hexdigest()
    else:
        docs, corpus_hash = pooled_corpus(records, f"eval:{data.name}"), ""
    questions = questions[:limit] if limit else questions
    hg = HopGraph(store or default_store(data_hash, corpus_hash, settings), settings, quiet=quiet)
    with hg:
        index_seconds = build_index(hg, docs)
        if LOCAL in methods:  # local search walks the no-LLM concept graph (built once, cached)
            started = time.perf_counter()
            graph = hg.extract_concepts()
            index_seconds["concept_graph"] = {"seconds": round(time.perf_counter() - started, 2),
                                              "entities": graph.entities, "relations": graph.relations}
        results = {m: evaluate_method(hg, questions, m, top, quiet, answers) for m in methods}
    return {"n_questions": len(questions), "n_paragraphs": len(docs), "top": top,
            "names_from": settings.names_from, "chunking": chunking_key(settings),
            "index_seconds": index_seconds, "methods": results, "store": hg.store.location}


def build_index(hg: HopGraph, docs: Sequence[Document]) -> dict[str, Any]:
    """Index (or find cached) and load the search index; the seconds each part took in this run.

    Call it before the first question: the search index is loaded after indexing."""
    report = hg.index_documents(docs)
    started = time.perf_counter()
    loaded = hg.search_index.load_seconds
    load_total = time.perf_counter() - started
    seconds = report.seconds
    return {"embed": round(seconds.get("embed", 0.0), 3), "read_names": round(seconds.get("read_names", 0.0), 3),
            "paragraphs_read": report.paragraphs_read, "bm25": round(loaded["bm25"], 3),
            "names_links": round(seconds.get("names_links", 0.0), 4),
            "total": round(seconds["total"] + load_total, 3), "cached": not report.changed,
            "titles_as_names": report.titles_as_names, "chunks": len(hg.search_index),
            "names": len(hg.search_index.name_surfaces), "links": int(hg.search_index.links.nnz)}


def format_table(result: dict[str, Any]) -> str:
    """One row per method: both_found / answer_in per type, overall, and query latency."""
    types = sorted({t for m in result["methods"].values() for t in m["by_type"]})
    extracts = all("answer_in_extract" in m["all"] for m in result["methods"].values())
    header = ["method", *[f"{t} both/ans" for t in types], "all both", "all recall",
              *(["ans in top-k", "ans in extract"] if extracts else []), "p50 ms", "p95 ms"]
    lines = []
    for method, m in result["methods"].items():
        cells = [f"{m['by_type'][t]['both_found']:.2f}/{m['by_type'][t]['answer_in']:.2f}"
                 if t in m["by_type"] else "-" for t in types]
        answers = [f"{m['all']['answer_in']:.3f}", f"{m['all']['answer_in_extract']:.3f}"] if extracts else []
        lines.append([method, *cells, f"{m['all']['both_found']:.3f}", f"{m['all']['recall']:.3f}", *answers,
                      f"{m['ms_per_query']['p50']:.1f}", f"{m['ms_per_query']['p95']:.1f}"])
    widths = [max(len(str(row[i])) for row in [header, *lines]) for i in range(len(header))]
    fmt = lambda row: "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True))  # noqa: E731
    counts = ", ".join(f"{t}={n}" for t, n in _type_counts(result).items())
    return "\n".join([f"{result['n_questions']} questions ({counts}), {result['n_paragraphs']} paragraphs, "
                      f"top {result['top']}, names from {result.get('names_from', '?')}, "
                      f"chunking {result.get('chunking', '?')}",
                      fmt(header), *map(fmt, lines)])


def _type_counts(result: dict[str, Any]) -> dict[str, int]:
    first = next(iter(result["methods"].values()), {"by_type": {}})
    return {t: v["n"] for t, v in first["by_type"].items()}
