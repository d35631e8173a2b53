"""Sparse scores answer as the dense array they stand for: the same scores, the same best rows
(ties by row), the same fusion to the bit, and so the same hits from every method."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval import stages
from hopgraph.retrieval.methods import run_method
from hopgraph.retrieval.sparse_scores import SparseScores
from hopgraph.retrieval.vector_search import AnnSearch, build_ann

QUESTIONS = ["Where is the director of Big Stone Gap based?", "Who produced Big Stone Gap?",
             "american film", "stone tools in prehistory", "Which retailer is based in San Francisco?"]


def random_sparse(rng: np.random.Generator, n: int, scored: int, rest: float) -> SparseScores:
    rows = rng.choice(n, size=scored, replace=False)
    values = rng.choice([rest, rest + 1.0, rest - 1.0, 0.25, 0.5], size=scored)  # ties, and rows below the rest
    return SparseScores(rows, values, rest, n)


@pytest.mark.parametrize("seed", range(30))
def test_the_best_rows_are_the_dense_arrays_best_rows(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    sparse = random_sparse(rng, n, int(rng.integers(0, n + 1)), rest=float(rng.choice([-1.0, 0.0, 0.25])))
    dense = np.asarray(sparse)
    for k in (0, 1, 5, 100, n + 3):
        exclude = set(rng.choice(n, size=int(rng.integers(0, min(n, 20) + 1)), replace=False).tolist())
        assert np.array_equal(sparse.top(k, exclude), stages.top_rows(dense, k, exclude)), (k, exclude)
        assert np.array_equal(stages.ranked_rows(sparse, k), stages.ranked_rows(dense, k))
    probe = rng.integers(0, n, size=50)
    assert np.array_equal(sparse.at(probe), dense[probe])
    assert [sparse[int(r)] for r in probe] == dense[probe].tolist()


def test_fusion_with_a_sparse_tiebreak_is_the_dense_fusion_to_the_bit():
    rng = np.random.default_rng(3)
    tiebreak = random_sparse(rng, 5000, 120, rest=-1e-6)
    rankings = [rng.choice(5000, size=100, replace=False), rng.choice(5000, size=60, replace=False)]
    sparse = stages.fuse_ranked(rankings, 10, tiebreak)
    dense = stages.fuse_ranked(rankings, 10, np.asarray(tiebreak))
    assert isinstance(sparse, SparseScores)
    assert np.array_equal(np.asarray(sparse), dense)


class DenseAnn:
    """The same ANN search, seen only through its dense scores: the methods' dense path."""

    def __init__(self, ann: AnnSearch) -> None:
        self.ann = ann

    def scores(self, query: np.ndarray, depth: int) -> np.ndarray:
        return self.ann.scores(query, depth)


def test_every_method_finds_the_same_hits_through_sparse_and_dense_ann_scores(tmp_path):
    hg = HopGraph(str(tmp_path / "tiny.db"), Settings(), embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    index = hg.search_index
    # one probed cell of one-row cells: most rows are not found and tie at the floor
    ann = AnnSearch(build_ann(index.vectors), index.vectors, probes=1)
    sparse_index = dataclasses.replace(index, vector_search=ann)
    dense_index = dataclasses.replace(index, vector_search=DenseAnn(ann))
    for method in ("vector", "hybrid", "hybrid+links", "hybrid+names+links", "ppr"):
        for question in QUESTIONS:
            got = run_method(sparse_index, question, method, Budget(top=8))
            want = run_method(dense_index, question, method, Budget(top=8))
            assert [(h.chunk_id, h.score, h.found_by, h.via, h.ranks) for h in got.hits] == \
                   [(h.chunk_id, h.score, h.found_by, h.via, h.ranks) for h in want.hits], (method, question)
    hg.close()
