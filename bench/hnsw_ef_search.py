"""HNSW breadth in PostgreSQL: recall@10 and time of `vector_links` per `hnsw.ef_search`.

Runs over a schema bench/scale.py wrote (`--postgres`), against exact search over the same vectors
(its snapshot), with the query vectors bench/scale_postgres.py uses (a stored chunk's vector plus
noise, cos ≈ 0.8). Also times the reference lab's one statement (2 seeds + their links, top 5). Prints a table
and writes JSON.

Usage: python bench/hnsw_ef_search.py --url 'postgresql://…?options=-csearch_path%3Dscale_100000_x'
       [--ef 40 80 120 160 240] [--queries 200] [--json bench/results/hnsw_ef_search.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from hopgraph.retrieval.snapshot import load_search_index
from hopgraph.retrieval.stages import top_rows
from hopgraph.retrieval.vector_search import ExactSearch
from hopgraph.store import open_store
from scale_postgres import _NoEmbedder

MODEL = "all-MiniLM-L6-v2-int8"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--ef", type=int, nargs="+", default=[40, 80, 120, 160, 240])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", default="bench/results/hnsw_ef_search.json")
    args = parser.parse_args()
    store = open_store(args.url, create=False)
    index = load_search_index(store, _NoEmbedder(MODEL), None)
    rng = np.random.default_rng(7)
    rows = np.sort(rng.choice(len(index), size=args.queries, replace=False))
    probes = np.asarray(index.vectors[rows], dtype=np.float32)
    probes = probes + 0.04 * rng.standard_normal(probes.shape, dtype=np.float32)
    probes /= np.linalg.norm(probes, axis=1, keepdims=True)
    exact = ExactSearch(index.vectors)
    truth = [{int(index.table.ids[r]) for r in top_rows(exact.scores(p), 10)} for p in probes]
    table = []
    for ef in args.ef:
        times, recall = [], []
        for probe, want in zip(probes, truth, strict=True):
            started = time.perf_counter()
            hits = store.vector_links(probe, MODEL, 10, 10, ef_search=ef)
            times.append((time.perf_counter() - started) * 1000)
            recall.append(len({c for c, step, _ in hits if step == 0} & want) / 10)
        times.sort()
        table.append({"ef_search": ef, "recall_at_10": round(float(np.mean(recall)), 4),
                      "p50_ms": round(statistics.median(times), 2),
                      "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2)})
        print(f"ef_search {ef:4d}  recall@10 {table[-1]['recall_at_10']:.4f}  p50 {table[-1]['p50_ms']:6.2f} ms"
              f"  p95 {table[-1]['p95_ms']:6.2f} ms", flush=True)
    one = []
    for probe in probes:  # the reference lab's statement: 2 seeds + their links, top 5, default breadth
        started = time.perf_counter()
        store.vector_links(probe, MODEL, 2, 5)
        one.append((time.perf_counter() - started) * 1000)
    one.sort()
    statement = {"p50_ms": round(statistics.median(one), 2), "p95_ms": round(one[int(0.95 * (len(one) - 1))], 2)}
    print(f"one statement (2 seeds + links, top 5)  p50 {statement['p50_ms']:.2f} ms  p95 {statement['p95_ms']:.2f} ms")
    store.close()
    Path(args.json).write_text(json.dumps({"chunks": len(index), "queries": args.queries, "rows": table,
                                           "one_statement": statement}, indent=2))


if __name__ == "__main__":
    main()
