"""Compare ANN libraries for hopgraph's vector ranker: usearch, faiss-cpu, hnswlib.

Data: `--n` clustered synthetic 384-d unit vectors (bench/synthetic.py: topics → documents of
~10 chunks → chunks), queries drawn near random documents. For each library: build time (all
cores), the saved index's size and the process's RSS growth; for each query-time setting: recall@10
against exact inner-product search, and the latency of one query at a time on one thread (how
`ask` searches).

Usage: python bench/ann_libraries.py [--n 100000] [--queries 1000] [--json bench/results/ann_libraries.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import faiss
import hnswlib
import numpy as np
from threadpoolctl import threadpool_limits
from usearch.index import Index

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import DIM, ClusterModel, docs_of_chunks, exact_top, recall_at

K = 10


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# Each builder adds the vectors, saves the index to `path`, and returns one search function per
# query-time setting (ef or nprobe): one build serves every setting.
Builder = Callable[[np.ndarray, str], dict[str, Callable[[np.ndarray], np.ndarray]]]


def build_usearch(dtype: str) -> Builder:
    def build(vectors: np.ndarray, path: str) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
        index = Index(ndim=DIM, metric="ip", dtype=dtype, connectivity=16, expansion_add=128)
        index.add(np.arange(len(vectors)), vectors, threads=os.cpu_count() or 1)
        index.save(path)

        def at(ef: int) -> Callable[[np.ndarray], np.ndarray]:
            def search(q: np.ndarray) -> np.ndarray:
                index.expansion_search = ef
                return index.search(q, K, threads=1).keys
            return search
        return {f"ef={ef}": at(ef) for ef in (32, 64, 128)}
    return build


def build_hnswlib(vectors: np.ndarray, path: str) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    index = hnswlib.Index(space="ip", dim=DIM)
    index.init_index(max_elements=len(vectors), M=16, ef_construction=128, random_seed=1)
    index.add_items(vectors, np.arange(len(vectors)), num_threads=os.cpu_count() or 1)
    index.save_index(path)
    index.set_num_threads(1)

    def at(ef: int) -> Callable[[np.ndarray], np.ndarray]:
        def search(q: np.ndarray) -> np.ndarray:
            index.set_ef(ef)
            return index.knn_query(q, K)[0][0]
        return search
    return {f"ef={ef}": at(ef) for ef in (32, 64, 128)}


def build_faiss_hnsw(vectors: np.ndarray, path: str) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    faiss.omp_set_num_threads(os.cpu_count() or 1)
    index = faiss.IndexHNSWFlat(DIM, 16, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = 128
    index.add(vectors)
    faiss.write_index(index, path)
    faiss.omp_set_num_threads(1)

    def at(ef: int) -> Callable[[np.ndarray], np.ndarray]:
        def search(q: np.ndarray) -> np.ndarray:
            index.hnsw.efSearch = ef
            return index.search(q[None, :], K)[1][0]
        return search
    return {f"ef={ef}": at(ef) for ef in (32, 64, 128)}


def build_faiss_ivf(vectors: np.ndarray, path: str) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    faiss.omp_set_num_threads(os.cpu_count() or 1)
    nlist = max(64, int(4 * np.sqrt(len(vectors))))  # faiss's rule of thumb: 4–16 × √n lists
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(DIM), DIM, nlist, faiss.METRIC_INNER_PRODUCT)
    train = np.random.default_rng(0).choice(len(vectors), min(len(vectors), 40 * nlist), replace=False)
    index.train(vectors[np.sort(train)])
    index.add(vectors)
    faiss.write_index(index, path)
    faiss.omp_set_num_threads(1)

    def at(nprobe: int) -> Callable[[np.ndarray], np.ndarray]:
        def search(q: np.ndarray) -> np.ndarray:
            index.nprobe = nprobe
            return index.search(q[None, :], K)[1][0]
        return search
    return {f"nlist={nlist} nprobe={p}": at(p) for p in (8, 16, 32, 64)}


CASES: dict[str, Builder] = {"usearch f32 M=16 efC=128": build_usearch("f32"),
                             "usearch f16 M=16 efC=128": build_usearch("f16"),
                             "hnswlib M=16 efC=128": build_hnswlib,
                             "faiss HNSWFlat M=16 efC=128": build_faiss_hnsw,
                             "faiss IVFFlat": build_faiss_ivf}


def measure(name: str, build: Builder, vectors: np.ndarray, queries: np.ndarray, truth: np.ndarray) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "index")
        before = rss_mb()
        started = time.perf_counter()
        searches = build(vectors, path)
        built = time.perf_counter() - started
        grown = rss_mb() - before
        size = os.path.getsize(path)
        for setting, search in searches.items():
            found, times = [], []
            with threadpool_limits(1):
                for q in queries:
                    t = time.perf_counter()
                    found.append(np.asarray(search(q))[:K])
                    times.append((time.perf_counter() - t) * 1000)
            times.sort()
            row = {"library": f"{name} {setting}", "build_s": round(built, 1), "index_mb": round(size / 2**20, 1),
                   "rss_growth_mb": round(grown, 1), "recall_at_10": round(recall_at(np.array(found), truth), 4),
                   "query_p50_ms": round(statistics.median(times), 3),
                   "query_p95_ms": round(times[int(0.95 * len(times))], 3)}
            print(f"{row['library']:<48} {row['build_s']:>7} {row['index_mb']:>8} {row['rss_growth_mb']:>8} "
                  f"{row['recall_at_10']:>7} {row['query_p50_ms']:>7} {row['query_p95_ms']:>7}", flush=True)
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=2000)
    parser.add_argument("--case", choices=list(CASES), help="measure one library (run in a child process)")
    parser.add_argument("--json", default="bench/results/ann_libraries.json")
    args = parser.parse_args()
    doc_of_row = docs_of_chunks(args.n, 10.0, seed=1)
    model = ClusterModel(int(doc_of_row[-1]) + 1, args.clusters)
    vectors = model.sample(doc_of_row, seed=1)
    queries = model.sample(np.random.default_rng(2).choice(doc_of_row[-1] + 1, args.queries), seed=2)
    truth = exact_top(vectors, queries, K)
    exact_times = []
    with threadpool_limits(1):
        for q in queries[:200]:
            t = time.perf_counter()
            scores = vectors @ q
            np.argpartition(-scores, K)[:K]
            exact_times.append((time.perf_counter() - t) * 1000)
    if not args.case:
        print(f"n={args.n:,} dim={DIM} clusters={args.clusters} queries={args.queries}; "
          f"exact (matrix-vector + argpartition, 1 thread) p50 {statistics.median(exact_times):.2f} ms")
        print(f"{'library':<48} {'build s':>7} {'index MB':>8} {'RSS +MB':>8} {'R@10':>7} {'p50 ms':>7} {'p95 ms':>7}")
    # One library per process (--case), so each one's RSS growth is its own, not the allocator's leftovers.
    if args.case:
        rows = measure(args.case, CASES[args.case], vectors, queries, truth)
        Path(args.json).write_text(json.dumps(rows))
        return
    rows = []
    for name in CASES:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            subprocess.run([sys.executable, __file__, "--n", str(args.n), "--queries", str(args.queries),
                            "--clusters", str(args.clusters), "--case", name, "--json", out.name], check=True)
            rows.extend(json.loads(Path(out.name).read_text()))
    result = {"n": args.n, "dim": DIM, "topics": args.clusters, "chunks_per_doc": 10, "queries": args.queries,
              "exact_p50_ms": round(statistics.median(exact_times), 3), "cpus": os.cpu_count(),
              "versions": {p: version(p) for p in ("usearch", "faiss-cpu", "hnswlib", "numpy")}, "rows": rows}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
