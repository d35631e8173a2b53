"""A search index served from the database: nothing local, nothing copied (issue 24).

A snapshot (retrieval/snapshot.py) holds every vector and the BM25 matrix; at a million chunks it
takes minutes to build and gigabytes on the disk of every host that asks. A store that ranks
chunks itself (store/base.py `RankingStore`: PostgreSQL) keeps the two big parts where they are:

- vectors are ranked by pgvector in SQL (`nearest_chunks`): an exact scan below `exact_below`
  chunks, the IVFFlat index above (store/postgres/vector_index.py; docs/BENCHMARKS.md,
  "Retrieval served from PostgreSQL");
- keywords are ranked in SQL by the embedded store's BM25 over its own terms: the question is
  tokenised here exactly as bm25s tokenises (text/bm25.py `keyword_terms`), and the store reads
  each term's best postings from its keyword index (`keyword_ranks`, store/postgres/keywords.py),
  a bounded read per term at any store size (docs/BENCHMARKS.md, issue 24).

What is small stays in process, in the very structures a snapshot fills, so the name, link and
PPR stages run unchanged: the chunk table's columns without texts (a text is read when a hit
needs it: retrieval/lazy_table.py), and the name graph's link matrices and name lookups (index.py
`name_graph_fields`). The index remembers the store's `generation` it was loaded at:
`is_current` is one meta read, and the caller loads again when a write moved it on.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from hopgraph.errors import HopgraphError
from hopgraph.retrieval.index import SearchIndex, name_graph_fields
from hopgraph.retrieval.lazy_table import lazy_table
from hopgraph.retrieval.vector_search import DatabaseSearch
from hopgraph.store.base import DocumentStore, RankingStore
from hopgraph.text.bm25 import keyword_terms
from hopgraph.text.embed import Embedder

KEYWORD_DEPTH = 1000  # rows the database ranks per question: fusion looks at the top 100


class DatabaseKeywords:
    """One score per chunk row: the database's BM25 score for its best `KEYWORD_DEPTH` rows, 0 for
    every other row (a row not loaded yet, written since, is left out)."""

    def __init__(self, store: RankingStore, row_of: dict[int, int]) -> None:
        self.store, self.row_of = store, row_of

    def scores(self, query: str) -> np.ndarray:
        scores = np.zeros(len(self.row_of), dtype=np.float32)
        for chunk, score in self.store.keyword_ranks(keyword_terms(query), KEYWORD_DEPTH):
            row = self.row_of.get(chunk)
            if row is not None:
                scores[row] = score
        return scores


def load_database_index(store: DocumentStore, embedder: Embedder, exact_below: int) -> SearchIndex:
    """The chunk columns and the name graph loaded; vectors and keywords left to the store to rank."""
    if not isinstance(store, RankingStore):
        raise HopgraphError(f"{store.location} cannot rank chunks itself: search_in = \"database\" needs "
                            f"a postgresql:// store (use search_in = \"snapshot\")")
    started = time.perf_counter()
    generation = store.meta().get("generation")  # read first: a commit while loading makes it stale at once
    columns, documents = store.chunk_columns()
    if not len(columns["ids"]):
        raise HopgraphError(f"{store.location} holds no documents yet: run `hopgraph index PATH...` first")
    table = lazy_table(store.chunk_texts, columns, documents)
    loaded = time.perf_counter()
    graph = name_graph_fields(table, store.name_graph())
    row_of = table.row_of()
    exact = len(table) < exact_below
    nearest = functools.partial(_nearest, store, embedder.name, exact)
    return SearchIndex(table=table, vectors=np.zeros((0, 0), dtype=np.float32),
                       keyword=DatabaseKeywords(store, row_of), **graph, embedder=embedder,
                       vector_search=DatabaseSearch(nearest, row_of, every_row=exact), origin="database",
                       generation=generation,
                       load_seconds={"columns": loaded - started, "graph": time.perf_counter() - loaded})


def _nearest(store: RankingStore, model: str, exact: bool, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    return store.nearest_chunks(query, model, k, exact)


def is_current(index: SearchIndex, store: DocumentStore) -> bool:
    """Whether the store is still at the state the index was loaded at (one meta read); an index
    not served from the database is its own copy, current by definition of its caller."""
    return index.origin != "database" or store.meta().get("generation") == index.generation
