"""A ranker's scores over a large store as a few scored rows plus one score for every other row.

Through an ANN index only the ~100 rows it finds have a cosine; every other row sits at the same
floor. Fusing and ranking a dense array of a million such scores costs a dozen passes over memory
per question (8 ms of a 26 ms query at 1M chunks, docs/BENCHMARKS.md). `SparseScores` holds the
scored rows and the floor instead, and answers the only questions the methods ask of scores — one
row's score and the best k rows — exactly as the dense array would: ties by row, lowest first, so
a method returns the same hits either way (tests/retrieval/test_sparse_scores.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


class SparseScores:
    """`n` scores: `values[i]` for `rows[i]` (sorted, unique), `rest` for every other row."""

    def __init__(self, rows: np.ndarray, values: np.ndarray, rest: float, n: int) -> None:
        order = np.argsort(rows, kind="stable")
        self.rows = np.asarray(rows, dtype=np.int64)[order]
        self.values = np.asarray(values, dtype=np.float64)[order]
        self.rest, self.n = float(rest), n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, row: int) -> float:
        at = int(np.searchsorted(self.rows, row))
        return float(self.values[at]) if at < len(self.rows) and self.rows[at] == row else self.rest

    def at(self, rows: np.ndarray) -> np.ndarray:
        """The scores of `rows` (any rows, in their order)."""
        rows = np.asarray(rows, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.rows, rows), max(len(self.rows) - 1, 0))
        hit = self.rows[at] == rows if len(self.rows) else np.zeros(len(rows), dtype=bool)
        return np.where(hit, self.values[at] if len(self.rows) else self.rest, self.rest)

    def map(self, f: Callable[[np.ndarray], np.ndarray]) -> SparseScores:
        """`f` applied to every score (the rows' and the rest's alike)."""
        return SparseScores(self.rows, f(self.values), float(f(np.array([self.rest]))[0]), self.n)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """The dense array (for stages that walk every row, such as PPR)."""
        dense = np.full(self.n, self.rest, dtype=np.float64)
        dense[self.rows] = self.values
        return dense if dtype is None else dense.astype(dtype)

    def top(self, k: int, exclude: set[int] | frozenset[int] = frozenset()) -> np.ndarray:
        """The k best rows, best first, ties by row, skipping `exclude`: the scored rows and, as
        candidates for the places they leave, the lowest rows that score `rest`."""
        want = min(self.n, k + len(exclude))
        if want <= 0:
            return np.zeros(0, dtype=np.int64)
        # enough unscored rows to fill every place even if all the scored ones sit below `rest`
        span = np.arange(min(self.n, want + len(self.rows)), dtype=np.int64)
        filler = np.setdiff1d(span, self.rows, assume_unique=True)[:want]
        rows = np.concatenate([self.rows, filler])
        values = np.concatenate([self.values, np.full(len(filler), self.rest)])
        ordered = rows[np.lexsort((rows, -values))]
        if exclude:
            ordered = ordered[~np.isin(ordered, list(exclude))]
        return ordered[:k]
