"""BM25 keyword search by `bm25s` (Lucene BM25 as a sparse matrix), English stemming by PyStemmer.

Chosen by measurement (bench/keyword_libraries.py, docs/BENCHMARKS.md): tantivy, bm25s and SQLite
FTS5 find the gold paragraphs equally well once they stem; bm25s scores every chunk in one sparse
product (~0.1 ms), which is exactly the dense score array hybrid fusion and link ordering need.
The index is derived data, rebuilt from the stored chunk texts when a store is opened for search,
so the SQLite file stays the single source of truth.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import bm25s
import numpy as np
import Stemmer
from bm25s.stopwords import STOPWORDS_EN

_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # bm25s's own default pattern, so queries match the index
_STOPWORDS = frozenset(STOPWORDS_EN)


class KeywordIndex:
    """Okapi BM25 (Lucene variant, k1=1.5, b=0.75) over lower-cased, stemmed words minus stopwords."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.n = len(texts)
        self._stemmer = Stemmer.Stemmer("english")
        self._retriever = bm25s.BM25()
        self._vocab: dict[str, int] = {}
        tokens = bm25s.tokenize(list(texts), stopwords="en", stemmer=self._stemmer, show_progress=False)
        if tokens.vocab:  # bm25s cannot index a corpus with no terms at all (empty or only stopwords)
            self._retriever.index(tokens, show_progress=False)
            self._vocab = self._retriever.vocab_dict

    def terms(self, query: str) -> list[str]:
        """The query's index terms (stemmed, stopwords and unknown words dropped)."""
        words = [w for w in _TOKEN.findall(query.lower()) if w not in _STOPWORDS]
        return [t for t in self._stemmer.stemWords(words) if t in self._vocab]

    def scores(self, query: str) -> np.ndarray:
        """A BM25 score for every text (0 where no query term occurs)."""
        terms = self.terms(query)
        if not terms:
            return np.zeros(self.n, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(terms), dtype=np.float32)
