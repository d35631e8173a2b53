"""Where a PostgreSQL `apply` spends its time: bench/scale.py's synthetic store, written step by step.

Per run: a fresh schema on a local `pgserver` server (or `--pg URL`), the corpus's vectors saved,
then one `apply` (the first index run of the whole corpus) with every statement the store sends
timed and grouped by what it writes — chunk inserts (their generated `tsvector` columns computed
as they go), postings, the graph tables, the HNSW build, the commit — plus `build_graph` itself.
Reports each step's median over `--runs`.

Usage: PYTHONPATH=src python bench/pg_apply.py --chunks 30000 --runs 3 [--pg URL] [--json out.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import scale_postgres
from hopgraph.ingest.carry import carry_facts
from hopgraph.records.documents import DocumentChange, RunRecord, utc_now
from hopgraph.store import open_store
from hopgraph.store.postgres import connection as pg
from scale import MODEL, Corpus, corpus_upserts, synthetic_graph

# The step a statement belongs to: the first pattern its text matches.
STEPS = [("commit", r"^COMMIT"), ("hnsw build", r"USING hnsw"), ("chunk rows", r"(INSERT INTO|COPY) chunks"),
         ("keys dropped and built", r"(DROP|CREATE) (UNIQUE )?INDEX|(DROP|ADD) CONSTRAINT|FROM pg_(constraint|index)"),
         ("postings", r"(INSERT INTO|COPY) postings|chunk_stats|keyword_terms|SELECT id, text FROM chunks"),
         ("names/mentions/links/abouts", r"(INSERT INTO|COPY|DELETE FROM) (names|mentions|links|abouts)"),
         ("chunk table read", r"FROM chunks c\s+JOIN documents"), ("documents", r"documents")]


def step_of(sql: str) -> str:
    return next((name for name, pattern in STEPS if re.search(pattern, sql)), "other")


@contextmanager
def timed_statements(seconds: dict[str, float]) -> Iterator[None]:
    """Every statement PgDatabase sends (and every COPY its connection opens) adds its time to its step."""
    saved = {name: getattr(pg.PgDatabase, name) for name in ("execute", "executemany", "copy")
             if hasattr(pg.PgDatabase, name)}

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        def timed(self: Any, sql: str, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return method(self, sql, *args, **kwargs)
            finally:  # `copy` is given a table's name, not a statement
                seconds[step_of(sql if method is not saved.get("copy") else f"COPY {sql}")] += (
                    time.perf_counter() - started)
        return timed

    for name, method in saved.items():
        setattr(pg.PgDatabase, name, wrap(method))
    try:
        yield
    finally:
        for name, method in saved.items():
            setattr(pg.PgDatabase, name, method)


def corpus_change(corpus: Corpus) -> tuple[DocumentChange, dict[str, np.ndarray]]:
    texts = corpus.texts()
    vectors = corpus.model.sample(corpus.doc_of_row, seed=3)
    hashes = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    return DocumentChange(upserts=corpus_upserts(corpus, texts, hashes)), dict(zip(hashes, vectors, strict=True))


def one_run(base: str, corpus: Corpus, change: DocumentChange, vectors: dict[str, np.ndarray]) -> dict[str, float]:
    url = scale_postgres.fresh_schema(base, len(corpus.doc_of_row))
    store = open_store(url)
    store.save_vectors(vectors, MODEL)
    seconds: dict[str, float] = defaultdict(float)

    def build_graph(table: Any) -> Any:
        started = time.perf_counter()
        graph = synthetic_graph(table, corpus)
        seconds["build_graph (python)"] += time.perf_counter() - started
        return graph

    with timed_statements(seconds):
        started = time.perf_counter()
        store.apply(change, build_graph, {"graph_signature": "synthetic", "embedder": MODEL,
                                          "generation": uuid.uuid4().hex},
                    RunRecord("index", utc_now(), lambda: "{}"), carry_facts)
        total = time.perf_counter() - started
    seconds["python and other"] = total - sum(seconds.values())  # building rows, psycopg's adaptation
    seconds["apply total"] = total
    seconds["postings rows"] = store._db.execute("SELECT count(*) FROM postings").fetchone()[0]
    seconds["links rows"] = store._db.execute("SELECT count(*) FROM links").fetchone()[0]
    store._db.execute("DROP SCHEMA " + url.rpartition("%3D")[2] + " CASCADE")
    store.close()
    return dict(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pg", help="a PostgreSQL URL (default: a local pgserver under --work)")
    parser.add_argument("--work", default="/tmp/hopgraph-pg-apply")
    parser.add_argument("--json")
    args = parser.parse_args()
    base = args.pg or scale_postgres.local_server(Path(args.work))
    corpus = Corpus(args.chunks)
    change, vectors = corpus_change(corpus)
    runs = [one_run(base, corpus, change, vectors) for _ in range(args.runs)]
    steps = sorted({k for r in runs for k in r}, key=lambda k: -statistics.median(r.get(k, 0) for r in runs))
    medians = {k: round(statistics.median(r.get(k, 0.0) for r in runs), 2) for k in steps}
    for k in steps:
        print(f"{k:<32} {medians[k]:>10}   runs: {[round(r.get(k, 0.0), 2) for r in runs]}")
    if args.json:
        Path(args.json).write_text(json.dumps({"chunks": args.chunks, "medians": medians, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
