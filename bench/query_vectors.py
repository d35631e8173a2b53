"""For benchmarks that ask the same questions of many methods: each question is embedded once per
process (the vector is the same for every method), so a run on a busy 2-core machine spends its
time in retrieval, not in re-embedding. Per-query latencies after the first method then exclude
the embedding: read latency from bench/retrieval.py, not from these runs."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

import hopgraph.engine


class OnceEmbedder:
    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._query = lru_cache(maxsize=None)(inner.embed_query)

    def embed_query(self, text: str) -> np.ndarray:
        return self._query(text).copy()  # a copy: no caller can change the cached vector

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def embed_each_question_once() -> None:
    """Make every HopGraph of this process embed a given question text once."""
    make = hopgraph.engine.make_embedder
    hopgraph.engine.make_embedder = lambda settings: OnceEmbedder(make(settings))  # type: ignore[assignment]
