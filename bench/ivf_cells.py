"""How many IVF cells, and how many probed: recall@10 and latency of faiss IVF-flat at scale.

Data as bench/scale.py makes it (bench/synthetic.py: documents of ~4 chunks, 2,000 topics); a query
is drawn near a random document. Each setting builds an index (`--mult` × √n cells, trained on
`--per-cell` sampled rows, `--niter` k-means rounds), takes the 100 nearest rows at each probe count
and re-scores them exactly, as retrieval/vector_search.py does; recall@10 is against exact search.

Usage: python bench/ivf_cells.py --n 200000 [--mult 2 4 8] [--probes 16 32 64] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import faiss
import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import DIM, ClusterModel, docs_of_chunks, exact_top, recall_at


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--mult", type=float, nargs="+", default=[2, 4, 8])
    parser.add_argument("--probes", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--per-cell", type=int, default=20)
    parser.add_argument("--niter", type=int, default=15)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--json", default="bench/results/ivf_cells.json")
    args = parser.parse_args()
    doc_of_row = docs_of_chunks(args.n, 4.0, 11)
    model = ClusterModel(int(doc_of_row[-1]) + 1)
    vectors = model.sample(doc_of_row, 3)
    queries = model.sample(np.random.default_rng(1).choice(doc_of_row[-1] + 1, args.queries), 9)
    truth = exact_top(vectors, queries, 10)
    rows = []
    print(f"{'n':>9} {'cells':>6} {'build s':>8} {'probes':>6} {'R@10':>7} {'ms/query':>8}")
    for mult in args.mult:
        cells = round(mult * np.sqrt(args.n))
        started = time.perf_counter()
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(DIM), DIM, cells, faiss.METRIC_INNER_PRODUCT)
        index.cp.min_points_per_centroid, index.cp.niter = 1, args.niter
        sample = np.random.default_rng(0).choice(args.n, min(args.n, args.per_cell * cells), replace=False)
        index.train(vectors[np.sort(sample)])
        index.add(vectors)
        built = time.perf_counter() - started
        for probes in args.probes:
            index.nprobe = probes
            with threadpool_limits(1):
                t = time.perf_counter()
                found = [index.search(q[None], 100)[1][0] for q in queries]
                ms = (time.perf_counter() - t) / len(queries) * 1000
            top = np.array([r[np.argsort(-(vectors[r] @ q))][:10] for r, q in zip(found, queries, strict=True)])
            row = {"n": args.n, "cells": cells, "build_s": round(built, 1), "probes": probes,
                   "recall_at_10": round(recall_at(top, truth), 4), "ms_per_query": round(ms, 2)}
            print(f"{args.n:>9,} {cells:>6} {built:>8.1f} {probes:>6} {row['recall_at_10']:>7} {ms:>8.2f}", flush=True)
            rows.append(row)
    Path(args.json).write_text(json.dumps({"per_cell": args.per_cell, "niter": args.niter, "rows": rows}, indent=2)
                               + "\n")


if __name__ == "__main__":
    main()
