"""BM25 keyword search by `bm25s` (Lucene BM25 as a sparse matrix), English stemming by PyStemmer.

Chosen by measurement (bench/keyword_libraries.py, docs/BENCHMARKS.md): tantivy, bm25s and SQLite
FTS5 find the gold paragraphs equally well once they stem; bm25s scores every chunk in one sparse
product (~0.1 ms), which is exactly the dense score array hybrid fusion and link ordering need.
The index is derived data, built from the stored chunk texts; a search snapshot
(retrieval/snapshot.py) keeps it with bm25s's own `save` and reads it back memory-mapped, so a
process opening a big store neither re-tokenises every text nor holds the whole matrix in memory.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import bm25s
import numpy as np
import Stemmer
from bm25s.stopwords import STOPWORDS_EN

_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # bm25s's own default pattern, so queries match the index
_STOPWORDS = frozenset(STOPWORDS_EN)


_PER_THREAD = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    """This thread's stemmer: PyStemmer says one instance serves one thread at a time (a server
    tokenises questions on many)."""
    if not hasattr(_PER_THREAD, "stemmer"):
        _PER_THREAD.stemmer = Stemmer.Stemmer("english")
    return _PER_THREAD.stemmer


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    """A word's stem, remembered: text repeats its words (Zipf), and one call a word costs a third
    of an index run's tokenising (bench/pg_keywords.py)."""
    return _stemmer().stemWord(word)


def keyword_terms(text: str) -> list[str]:
    """The text's BM25 terms, in order and repeated as often as they occur: exactly the tokens
    `bm25s.tokenize(…, stopwords="en", stemmer=…)` gives it (lower-cased, `\\w\\w+` words, bm25s's
    English stopwords dropped before stemming, PyStemmer English). A text's BM25 length is their
    number; a store that ranks keywords itself (PostgreSQL) indexes and queries these."""
    return [_stem(w) for w in _TOKEN.findall(text.lower()) if w not in _STOPWORDS]


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

    def save(self, directory: str | Path) -> None:
        """bm25s's own files (the score matrix as .npy, the vocabulary as JSON) plus our row count."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if self._vocab:
            self._retriever.save(str(directory), show_progress=False)
        (directory / "hopgraph.json").write_text(json.dumps({"n": self.n, "empty": not self._vocab}))

    @classmethod
    def load(cls, directory: str | Path, mmap: bool = True) -> KeywordIndex:
        """The index `save` wrote, its score matrix memory-mapped (pages read as queries touch them)."""
        directory = Path(directory)
        info = json.loads((directory / "hopgraph.json").read_text())
        index = cls.__new__(cls)
        index.n, index._stemmer, index._vocab = int(info["n"]), Stemmer.Stemmer("english"), {}
        index._retriever = bm25s.BM25()
        if not info["empty"]:
            index._retriever = bm25s.BM25.load(str(directory), mmap=mmap, show_progress=False)
            index._vocab = index._retriever.vocab_dict
            if int(index._retriever.scores["num_docs"]) != index.n:
                raise ValueError(f"{directory}: the BM25 matrix holds another number of texts")
        return index

    def terms(self, query: str) -> list[str]:
        """The query's index terms (stemmed, stopwords and unknown words dropped)."""
        return [t for t in keyword_terms(query) if t in self._vocab]

    def scores(self, query: str) -> np.ndarray:
        """A BM25 score for every text (0 where no query term occurs)."""
        terms = self.terms(query)
        if not terms:
            return np.zeros(self.n, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(terms), dtype=np.float32)
