"""A toy ranker from outside hopgraph: `longest` puts the longest chunks first.

Nobody would search this way, which is what makes it a test: its order is unlike any built-in
ranker's, so a hit found by it can only have come through the registry."""

from __future__ import annotations

import numpy as np

from hopgraph.retrieval import rankers
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.rankers import Ranking, RankRequest

NAME = "longest"


def longest_first(index: SearchIndex, question: str, request: RankRequest) -> Ranking:
    texts = index.table.texts
    scores = np.array([float(len(texts[row])) for row in range(len(index.table.ids))])
    request.timer.step(NAME, "chunk length in characters")
    return Ranking(scores)


def register() -> None:
    rankers.register(NAME, longest_first, "the longest chunks first, a toy plugin's")
