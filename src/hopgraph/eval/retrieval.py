"""Multi-hop retrieval evaluation on HotpotQA-format records, bucketed by question type.

both_found: every gold supporting title is among the top-k hits' titles; recall: the mean share of
gold titles found; answer_in: the answer string occurs (case-insensitively) in the top-k text.
"""

from __future__ import annotations

import hashlib
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
from hopgraph.eval.halves import select_half
from hopgraph.eval.questions import Question, load_questions, pooled_corpus
from hopgraph.eval.tables import text_table
from hopgraph.ingest.pipeline import chunking_key
from hopgraph.ingest.readers import expand_paths, read_documents, read_text_file
from hopgraph.linkgraph.naming import check_source
from hopgraph.progress import bar_over
from hopgraph.query.local import LocalBudget
from hopgraph.records.documents import Document
from hopgraph.retrieval.methods import METHODS, parse_method
from hopgraph.retrieval.router import AUTO

LOCAL = "local"  # the knowledge-graph method: local search over the concept graph


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
    keys = [k for k in ("both_found", "answer_in", "recall") if rows and k in rows[0]]
    return {"n": len(rows), **{key: round(statistics.fmean(r[key] for r in rows), 4) for key in keys}}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def evaluate_method(hg: HopGraph, questions: Sequence[Question], method: str, top: int,
                    quiet: bool) -> dict[str, Any]:
    """Retrieval scores per question type, and the retrieval's latency alone."""
    by_type: dict[str, list[dict[str, float]]] = defaultdict(list)
    latencies = []
    for question in bar_over(questions, method, quiet, total=len(questions)):
        started = time.perf_counter()
        if method == LOCAL:
            retrieval = hg.local(question.text, LocalBudget(top=top)).retrieval
        else:
            retrieval = hg.search(question.text, method=method, top=top)
        latencies.append((time.perf_counter() - started) * 1000)
        by_type[question.type].append(score_retrieval(question, [h.title for h in retrieval.hits],
                                                      [h.text for h in retrieval.hits]))
    everything = [row for rows in by_type.values() for row in rows]
    return {"by_type": {t: summarise(rows) for t, rows in sorted(by_type.items())},
            "all": summarise(everything),
            "ms_per_query": {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95)}}


@dataclass
class EvalSet:
    """A QA set ready to score: its questions (after `--limit`), its corpus, and the store file."""

    questions: list[Question]
    docs: list[Document]
    store: str


def corpus_documents(corpus: Path) -> tuple[list[Document], str]:
    """The documents of a corpus file, or of every supported file in a corpus folder (as `hopgraph
    index` reads them), and the hash of the contents and file names (the cache key). A folder's
    documents are keyed by their absolute paths, so its key holds the folder's place too: the same
    files in a second checkout are other documents, and would be indexed beside the first ones."""
    if not corpus.is_dir():  # one source whatever the working folder
        return read_documents(corpus.resolve()), hashlib.sha256(read_text_file(corpus).encode()).hexdigest()
    digest, docs = hashlib.sha256(f"{corpus.resolve()}\0".encode()), []
    for path in expand_paths([corpus]):
        docs.extend(read_documents(path.resolve()))
        digest.update(f"{path.relative_to(corpus)}\0{read_text_file(path)}\0".encode())
    return docs, digest.hexdigest()


def load_eval_set(data: Path, corpus: Path | None, limit: int | None, store: str | None,
                  settings: Settings, half: str | None = None) -> EvalSet:
    """Questions (those of `half` when given) and corpus (the records' pooled paragraphs unless
    `corpus` is given), and the cached store keyed by both and by the settings that shape the index.
    Both halves share the whole corpus, and so one index."""
    check_source(settings.names_from)
    questions, records, data_hash = load_questions(data)
    if corpus:
        docs, corpus_hash = corpus_documents(corpus)
    else:
        docs, corpus_hash = pooled_corpus(records, f"eval:{data.name}"), ""
    questions = select_half(questions, half, lambda q: q.id)
    if not questions:
        raise InputError(f"{data}: no question falls in half {half}")
    return EvalSet(questions[:limit] if limit else questions, docs,
                   store or default_store(data_hash, corpus_hash, settings))


def run_eval(data: Path, corpus: Path | None = None, methods: Sequence[str] = METHODS, top: int = 5,
             limit: int | None = None, store: str | None = None, settings: Settings | None = None,
             quiet: bool = True, half: str | None = None) -> dict[str, Any]:
    """Index the corpus (cached) and score every method on every question (of `half`, when given).

    Names come from `settings.names_from`, exactly as `hopgraph index` makes them (no eval-only
    path); titles still decide what a gold paragraph is."""
    for method in methods:
        if method not in (LOCAL, AUTO):
            parse_method(method)
    settings = settings or Settings()
    qa = load_eval_set(data, corpus, limit, store, settings, half)
    hg = HopGraph(qa.store, settings, quiet=quiet)
    with hg:
        index_seconds = build_index(hg, qa.docs)
        if LOCAL in methods:  # local search walks the no-LLM concept graph (built once, cached)
            started = time.perf_counter()
            graph = hg.extract_concepts()
            index_seconds["concept_graph"] = {"seconds": round(time.perf_counter() - started, 2),
                                              "entities": graph.entities, "relations": graph.relations}
        results = {m: evaluate_method(hg, qa.questions, m, top, quiet) for m in methods}
    return {"n_questions": len(qa.questions), "n_paragraphs": len(qa.docs), "top": top, "half": half,
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
            "paragraphs_read": report.paragraphs_read, "bm25": round(loaded.get("bm25", 0.0), 3),  # 0: a snapshot
            "names_links": round(seconds.get("names_links", 0.0), 4),
            "total": round(seconds["total"] + load_total, 3), "cached": not report.changed,
            "titles_as_names": report.titles_as_names, "chunks": len(hg.search_index),
            "names": len(hg.search_index.name_surfaces), "links": int(hg.search_index.links.nnz)}


def format_table(result: dict[str, Any]) -> str:
    """One row per method: both_found / answer_in per type, overall, and query latency."""
    types = sorted({t for m in result["methods"].values() for t in m["by_type"]})
    header = ["method", *[f"{t} both/ans" for t in types], "all both", "all recall",
              "p50 ms", "p95 ms"]
    lines = []
    for method, m in result["methods"].items():
        cells = [f"{m['by_type'][t]['both_found']:.2f}/{m['by_type'][t]['answer_in']:.2f}"
                 if t in m["by_type"] else "-" for t in types]
        lines.append([method, *cells, f"{m['all']['both_found']:.3f}", f"{m['all']['recall']:.3f}",
                      f"{m['ms_per_query']['p50']:.1f}", f"{m['ms_per_query']['p95']:.1f}"])
    counts = ", ".join(f"{t}={n}" for t, n in _type_counts(result).items())
    half = f", half {result['half'].upper()}" if result.get("half") else ""
    return text_table(f"{result['n_questions']} questions ({counts}){half}, {result['n_paragraphs']} paragraphs, "
                      f"top {result['top']}, names from {result.get('names_from', '?')}, "
                      f"chunking {result.get('chunking', '?')}", header, lines)


def _type_counts(result: dict[str, Any]) -> dict[str, int]:
    first = next(iter(result["methods"].values()), {"by_type": {}})
    return {t: v["n"] for t, v in first["by_type"].items()}
