"""Keyword ranking inside PostgreSQL at scale: `apply` time, query p50/p95, and what the per-term bound costs.

    PYTHONPATH=src python bench/pg_keywords.py --chunks 100000 [--queries 200] [--per-term 500 1000 2000 5000]
                                               [--pg URL] [--work /tmp/hopgraph-pg-keywords] [--json PATH]

bench/scale.py's synthetic corpus (Zipf words: the commonest non-stopwords sit in a third of the
chunks) written into a fresh schema (a local `pgserver` unless `--pg`) by one `apply` without
vectors (no HNSW build: what is timed is the chunk, keyword and name-graph writes). Then
`--queries` questions, each the first six words of a random chunk, ranked in SQL at the served
depth (retrieval/database_index.py KEYWORD_DEPTH, 1,000 rows), p50/p95 per setting after a warm-up
pass; with the keyword index of store/postgres/keywords.py, per `--per-term` bound and exact (no
bound), and for each bound the share of the exact top 10 and top 100 it keeps (fusion reads the top
100). The exact SQL ranking is also checked against bm25s in process over the same texts.

Run against an older checkout (PYTHONPATH=<it>/src) it times that checkout's "bm25_matched"
ranking (PostgreSQL full text) instead: the before of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import scale_postgres
from hopgraph.ingest.carry import carry_facts
from hopgraph.records.documents import DocumentChange, RunRecord, utc_now
from hopgraph.retrieval.database_index import KEYWORD_DEPTH
from hopgraph.store import open_store
from scale import Corpus, corpus_upserts, synthetic_graph

EXACT = 10**9  # a bound no term reaches


def write(url: str, corpus: Corpus, texts: list[str]) -> float:
    hashes = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    store = open_store(url)
    change = DocumentChange(upserts=corpus_upserts(corpus, texts, hashes))
    started = time.perf_counter()
    store.apply(change, lambda table: synthetic_graph(table, corpus),
                {"graph_signature": "synthetic", "generation": uuid.uuid4().hex},
                RunRecord("index", utc_now(), lambda: "{}"), carry_facts)
    seconds = time.perf_counter() - started
    store.close()
    return seconds


def timed_ranks(rankers: dict[str, Any], questions: list[str]) -> tuple[dict[str, list[list[int]]], dict[str, Any]]:
    """Every ranker on every question, in turn per question (a shared machine's load falls on all
    alike), after a warm-up pass over the first 20; the chunk ids each ranked, and p50/p95 ms."""
    for question in questions[:20]:
        for rank in rankers.values():
            rank(question)
    ranked: dict[str, list[list[int]]] = {name: [] for name in rankers}
    ms: dict[str, list[float]] = {name: [] for name in rankers}
    for question in questions:
        for name, rank in rankers.items():
            started = time.perf_counter()
            ranked[name].append([chunk for chunk, _ in rank(question)])
            ms[name].append((time.perf_counter() - started) * 1000)
    return ranked, {name: {"p50_ms": round(statistics.median(t), 1),
                           "p95_ms": round(sorted(t)[int(0.95 * (len(t) - 1))], 1)} for name, t in ms.items()}


def kept(found: list[list[int]], exact: list[list[int]], k: int) -> float:
    return round(float(np.mean([len(set(f[:k]) & set(e[:k])) / max(1, len(e[:k]))
                                for f, e in zip(found, exact, strict=True)])), 4)


def measure(url: str, questions: list[str], per_term: list[int], bm25s_check: bool) -> dict[str, Any]:
    store = open_store(url, create=False)
    out: dict[str, Any] = {"disk_mb": table_sizes(store)}
    if "terms" not in inspect.signature(store.keyword_ranks).parameters:  # an older checkout
        _, times = timed_ranks({"bm25_matched": lambda q: store.keyword_ranks(q, KEYWORD_DEPTH, "bm25_matched")},
                               questions)
        store.close()
        return out | times
    from hopgraph.text.bm25 import keyword_terms

    bounds = {"exact": EXACT} | {str(n): n for n in per_term}
    ranked, times = timed_ranks({name: (lambda q, n=n: store.keyword_ranks(keyword_terms(q), KEYWORD_DEPTH, n))
                                 for name, n in bounds.items()}, questions)
    out |= times
    for bound in per_term:
        out[str(bound)] |= {"top10_kept": kept(ranked[str(bound)], ranked["exact"], 10),
                            "top100_kept": kept(ranked[str(bound)], ranked["exact"], 100)}
    if bm25s_check:
        out["exact_vs_bm25s"] = against_bm25s(store, questions, ranked["exact"])
    store.close()
    return out


def against_bm25s(store: Any, questions: list[str], exact: list[list[int]]) -> dict[str, float]:
    """The exact SQL ranking's top 100 against bm25s's over the very same chunk texts."""
    from hopgraph.retrieval.stages import top_rows
    from hopgraph.text.bm25 import KeywordIndex

    ids, texts = zip(*store._db.execute("SELECT id, text FROM chunks ORDER BY id").fetchall(), strict=True)
    index = KeywordIndex(list(texts))
    same, overlap = [], []
    for question, in_sql in zip(questions, exact, strict=True):
        scores = index.scores(question)
        embedded = [int(ids[r]) for r in top_rows(scores, 100) if scores[r] > 0]
        same.append(embedded == in_sql[:100])
        overlap.append(len(set(embedded) & set(in_sql[:100])) / len(embedded) if embedded else float(not in_sql))
    # bm25s adds float32 scores: a near-tie may order differently from PostgreSQL's float8 sum
    return {"same_top100_order": round(float(np.mean(same)), 4), "top100_overlap": round(float(np.mean(overlap)), 4)}


def table_sizes(store: Any) -> dict[str, float]:
    rows = store._db.execute(
        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN "
        "('chunks', 'postings', 'keyword_terms', 'chunk_stats')").fetchall()
    return {name: round(size / 2**20, 1) for name, size in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--per-term", type=int, nargs="*", default=[500, 1000, 2000, 5000])
    parser.add_argument("--pg", help="a PostgreSQL URL (default: a local pgserver under --work)")
    parser.add_argument("--work", default="/tmp/hopgraph-pg-keywords")
    parser.add_argument("--no-bm25s", action="store_true", help="skip the check against bm25s in process (memory)")
    parser.add_argument("--json")
    args = parser.parse_args()
    started = time.perf_counter()
    base = args.pg or scale_postgres.local_server(Path(args.work))
    corpus = Corpus(args.chunks)
    texts = corpus.texts()
    url = scale_postgres.fresh_schema(base, args.chunks)
    result: dict[str, Any] = {"chunks": args.chunks, "apply_s": round(write(url, corpus, texts), 1)}
    rng = np.random.default_rng(7)
    questions = [" ".join(texts[r].split()[:6]) for r in rng.choice(len(texts), size=args.queries, replace=False)]
    result |= measure(url, questions, args.per_term, not args.no_bm25s)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
