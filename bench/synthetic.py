"""Synthetic corpora for the scale benchmarks: clustered unit vectors, Zipf texts, titled documents.

Real text costs hours to embed on two cores, so the vectors are synthetic but shaped like sentence
embeddings: a few thousand topic centroids, cluster sizes with a long tail, a per-cluster spread,
a shared mean direction (real embeddings are anisotropic), each vector L2-normalised. iid Gaussian
vectors would make every neighbour equally far and flatter ANN recall than real data deserves.
"""

from __future__ import annotations

import numpy as np

DIM = 384


class ClusterModel:
    """Topics → documents → chunks: a document's chunks scatter around the document's direction,
    which scatters around its topic's; every topic shares one mean direction (real embeddings are
    anisotropic). Cosines: ≈ 0.6 between chunks of one document, ≈ 0.4 within a topic, ≈ 0.15 apart."""

    def __init__(self, n_docs: int, n_topics: int = 2000, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        mean = _unit(rng.standard_normal((1, DIM), dtype=np.float32))
        topics = _unit(0.6 * _unit(rng.standard_normal((n_topics, DIM), dtype=np.float32)) + 0.4 * mean)
        weights = 1.0 / np.arange(1, n_topics + 1) ** 0.6  # a long tail of topic sizes
        self.topic_of_doc = rng.choice(n_topics, size=n_docs, p=weights / weights.sum())
        self.docs = np.empty((n_docs, DIM), dtype=np.float32)
        for start in range(0, n_docs, 50_000):
            part = self.topic_of_doc[start : start + 50_000]
            noise = rng.standard_normal((len(part), DIM), dtype=np.float32)
            self.docs[start : start + len(part)] = _unit(topics[part] + 0.04 * noise)
        self.spread = rng.uniform(0.03, 0.05, n_docs).astype(np.float32)  # per-document scatter

    def sample(self, doc_of_row: np.ndarray, seed: int) -> np.ndarray:
        """One unit vector (float32) per entry of `doc_of_row`, near that document's direction."""
        rng = np.random.default_rng(seed)
        out = np.empty((len(doc_of_row), DIM), dtype=np.float32)
        for start in range(0, len(doc_of_row), 50_000):  # in blocks: a million rows of noise is 1.5 GB
            part = doc_of_row[start : start + 50_000]
            noise = rng.standard_normal((len(part), DIM), dtype=np.float32)
            out[start : start + len(part)] = _unit(self.docs[part] + noise * self.spread[part, None])
        return out


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def docs_of_chunks(n_chunks: int, mean_chunks: float, seed: int) -> np.ndarray:
    """The document of each chunk row, documents in order, 1 + Poisson(mean − 1) chunks each."""
    rng = np.random.default_rng(seed)
    sizes = 1 + rng.poisson(mean_chunks - 1, size=int(n_chunks / mean_chunks) + 10)
    return np.repeat(np.arange(len(sizes)), sizes)[:n_chunks]


def exact_top(vectors: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """The exact top-k rows by inner product for each query (the ground truth for recall)."""
    out = np.empty((len(queries), k), dtype=np.int64)
    for start in range(0, len(queries), 64):
        scores = queries[start : start + 64] @ vectors.T
        part = np.argpartition(-scores, k, axis=1)[:, :k]
        order = np.take_along_axis(scores, part, axis=1).argsort(axis=1)[:, ::-1]
        out[start : start + 64] = np.take_along_axis(part, order, axis=1)
    return out


def recall_at(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean share of the exact top-k that the ANN top-k holds."""
    return float(np.mean([len(set(f.tolist()) & set(t.tolist())) / len(t) for f, t in zip(found, truth, strict=True)]))
