"""The vector ranker's one search: exact (a matrix-vector product) or, for large stores, an ANN index.

Every ranker returns a dense score per chunk row (fusion and link ordering are array operations),
so both searches return one: exact search the cosine of every row; ANN search the exact cosine of
the rows it finds (re-scored from the vector matrix, so a score means the same on both paths) and
`FLOOR` — the least a cosine can be — for every other row, which ranks no unfound row above a
found one and, being ≤ 0, is "not ranked" for fusion.

The ANN index is faiss's IVF (inverted lists over k-means cells, exhaustive within the `PROBES`
nearest cells), chosen by measurement (bench/ann_libraries.py, bench/ivf_cells.py,
docs/BENCHMARKS.md): at 100k vectors on two cores it matched the HNSW indexes (usearch, hnswlib,
faiss's own) in recall@10 and query time and built fastest; its build is plain k-means and
assignment (BLAS, both cores), and it is read memory-mapped from the snapshot (IO_FLAG_MMAP), so
opening it costs milliseconds.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable

import numpy as np
from threadpoolctl import ThreadpoolController

from hopgraph.retrieval.sparse_scores import SparseScores

# One query's matrix-vector product is too small to share out: waking BLAS threads costs more than
# the product and fights the embedder's threads for the cores (measured 4.4 ms → 0.4 ms on 2 cores).
_THREADS = ThreadpoolController()
FLOOR = -1.0  # the score of a row the ANN search did not find: no cosine is lower
MIN_CANDIDATES = 100  # rows an ANN search re-scores at least (fusion looks at the top 100)
PROBES = 32  # IVF cells searched per query (recall@10 ≥ 0.99 at 100k and 1M, docs/BENCHMARKS.md)


class ExactSearch:
    """Cosine of the question with every row (the vectors are L2-normalised)."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    def scores(self, query: np.ndarray, depth: int = MIN_CANDIDATES) -> np.ndarray:
        with _THREADS.limit(limits=1, user_api="blas"):
            return np.asarray(self.vectors @ query)


class AnnSearch:
    """The exact cosine of the rows an IVF index finds nearest, `FLOOR` for the rest."""

    def __init__(self, index: object, vectors: np.ndarray, probes: int = PROBES) -> None:
        self.index, self.vectors, self.probes = index, vectors, probes

    def candidates(self, query: np.ndarray, k: int) -> np.ndarray:
        """The rows the index finds nearest the query (at most k; fewer in a tiny store)."""
        import faiss

        faiss.extract_index_ivf(self.index).nprobe = self.probes
        faiss.omp_set_num_threads(1)  # one query: OpenMP threads only cost (as BLAS's above)
        _, rows = self.index.search(np.asarray(query, dtype=np.float32)[None, :], k)  # type: ignore[attr-defined]
        rows = rows[0]
        return rows[rows >= 0]

    def scores(self, query: np.ndarray, depth: int = MIN_CANDIDATES) -> np.ndarray:
        return np.asarray(self.sparse_scores(query, depth), dtype=np.float32)

    def sparse_scores(self, query: np.ndarray, depth: int = MIN_CANDIDATES) -> SparseScores:
        """The same scores as `scores`, held as the found rows and the floor (sparse_scores.py)."""
        rows = np.sort(self.candidates(query, max(depth, MIN_CANDIDATES)))  # in row order: fewer page faults
        cosine = np.asarray(self.vectors[rows] @ query, dtype=np.float32)  # a hundred rows: too few to thread
        return SparseScores(rows, cosine, FLOOR, len(self.vectors))


class DatabaseSearch:
    """The cosine of the rows the database finds nearest (pgvector: store/postgres/search.py
    `nearest_chunks`), `FLOOR` for the rest, as AnnSearch gives them. `nearest(query, k)` returns
    (chunk id, cosine); a chunk the rows do not hold (written since they were loaded) is left out.

    `every_row`: the cosine of every row, as ExactSearch gives them (the database's exact scan, below
    the ANN threshold). A link or name stage that places a chunk outside the nearest rows then
    weighs it by its own cosine, not the floor: without it 3 of 2Wiki's 500 questions parted from
    the embedded store at the links stage (docs/BENCHMARKS.md, "Retrieval served from PostgreSQL")."""

    def __init__(self, nearest: Callable[[np.ndarray, int], list[tuple[int, float]]], row_of: dict[int, int],
                 every_row: bool = False) -> None:
        self.nearest, self.row_of, self.every_row = nearest, row_of, every_row

    def scores(self, query: np.ndarray, depth: int = MIN_CANDIDATES) -> np.ndarray:
        return np.asarray(self.sparse_scores(query, depth), dtype=np.float32)

    def sparse_scores(self, query: np.ndarray, depth: int = MIN_CANDIDATES) -> SparseScores:
        # every row, and room for chunks written since the rows were loaded (the database returns
        # them too, and they are left out below)
        depth = len(self.row_of) + MIN_CANDIDATES if self.every_row else max(depth, MIN_CANDIDATES)
        found = [(self.row_of[chunk], cosine) for chunk, cosine in self.nearest(query, depth)
                 if chunk in self.row_of]
        rows = np.asarray([row for row, _ in found], dtype=np.int64)
        # float32, as the embedded store's cosines are: the hybrid tie-break then weighs the same
        cosine = np.asarray([c for _, c in found], dtype=np.float32)
        return SparseScores(rows, cosine, FLOOR, len(self.row_of))


VectorSearch = ExactSearch | AnnSearch | DatabaseSearch


def cells_for(n: int) -> int:
    """IVF cells for n vectors: 8√n. Measured at 200k (bench/ann_libraries.py notes): 2√n cells
    reach recall@10 0.93 at 32 probes, 8√n 0.99 at 16 — smaller cells hold fewer far-off rows,
    so a query is both more exact and faster; training costs more, still a fraction of HNSW's."""
    return max(1, min(n, 65536, round(8 * math.sqrt(n))))  # k-means needs at least one row per cell


def build_ann(vectors: np.ndarray, seed: int = 0) -> object:
    """An IVF-flat inner-product index over the rows (row i is id i), trained on a sample of rows."""
    import faiss

    n, dim = vectors.shape
    cells = cells_for(n)
    faiss.omp_set_num_threads(os.cpu_count() or 1)
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, cells, faiss.METRIC_INNER_PRODUCT)
    # 20 rows per cell and 15 k-means rounds: recall as with faiss's defaults (39 rows, 25 rounds)
    # within 0.01, at half the training time; sampled in row order for locality
    sample = np.sort(np.random.default_rng(seed).choice(n, size=min(n, 20 * cells), replace=False))
    index.cp.min_points_per_centroid = 1  # a small store's few rows per cell is expected, not a warning
    index.cp.niter = 15
    index.cp.seed = seed
    index.train(np.ascontiguousarray(vectors[sample], dtype=np.float32))
    for start in range(0, n, 100_000):  # in blocks: a memory-mapped matrix is never copied whole
        index.add(np.ascontiguousarray(vectors[start : start + 100_000], dtype=np.float32))
    return index


def save_ann(index: object, path: str) -> None:
    import faiss

    faiss.write_index(index, path)


def load_ann(path: str) -> object:
    """The saved index, memory-mapped read-only: its inverted lists are paged in as probed."""
    import faiss

    return faiss.read_index(path, faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)


def ann_size(index: object) -> int:
    return int(index.ntotal)  # type: ignore[attr-defined]
