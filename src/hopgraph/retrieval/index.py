"""The in-memory view of a store that queries run against.

Vectors are one float32 matrix (exact search is a matrix-vector product), BM25 is rebuilt from the
chunk texts, and the name-link graph is a scipy CSR matrix of chunk rows.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import sparse

from hopgraph.errors import HopgraphError
from hopgraph.linkgraph.names import MentionFinder
from hopgraph.linkgraph.ppr import MentionGraph, build_mention_graph
from hopgraph.records.documents import ChunkTable, rows_by_document
from hopgraph.store.base import DocumentStore
from hopgraph.text.bm25 import KeywordIndex
from hopgraph.text.embed import Embedder
from hopgraph.text.tokens import count_tokens


@dataclass
class SearchIndex:
    table: ChunkTable
    vectors: np.ndarray  # (n_chunks, dim), L2-normalised
    keyword: KeywordIndex
    links: sparse.csr_matrix  # (source row, target row) → id of the name that made the link (≥ 1)
    name_surfaces: dict[int, str]  # name id → surface
    question_names: MentionFinder  # finds document names in a question
    rows_named: dict[str, list[int]]  # case-folded surface → chunk rows of the documents it names
    display_names: dict[str, str]  # case-folded surface → the surface as written in the corpus
    embedder: Embedder
    load_seconds: dict[str, float] = field(default_factory=dict)
    mention_graphs: dict[float, MentionGraph] = field(default_factory=dict)  # by reverse weight
    token_counts: dict[int, int] = field(default_factory=dict)  # row → tokens, filled as hits need them

    def __len__(self) -> int:
        return len(self.table)

    @cached_property
    def row_of_chunk(self) -> dict[int, int]:
        return self.table.row_of()

    def mention_graph(self, reverse_weight: float = 1.0) -> MentionGraph:
        """The Personalized PageRank graph (chunks + linking names), built on first use per weight of
        walking a link backwards (a few ms) and kept for the life of the index."""
        graph = self.mention_graphs.get(reverse_weight)
        if graph is None:
            started = time.perf_counter()
            graph = self.mention_graphs[reverse_weight] = build_mention_graph(self.links, reverse_weight)
            self.load_seconds[f"mention_graph_{reverse_weight:g}"] = time.perf_counter() - started
        return graph

    def tokens_of_row(self, row: int) -> int:
        """The chunk's length in the chunker's tokens (counted on first use, then remembered)."""
        if row not in self.token_counts:
            self.token_counts[row] = count_tokens(self.table.texts[row])
        return self.token_counts[row]

    def title_of_row(self, row: int) -> str:
        return self.table.titles[int(self.table.doc_ids[row])]

    def source_of_row(self, row: int) -> str:
        return self.table.source_of_row(row)


def load_search_index(store: DocumentStore, embedder: Embedder) -> SearchIndex:
    started = time.perf_counter()
    table = store.chunk_table()
    if not len(table):
        raise HopgraphError(f"{store.location} holds no documents yet: "
                            f"run `hopgraph index PATH...` first")
    vectors = store.vector_matrix(table.text_hashes, embedder.name)
    loaded = time.perf_counter()
    keyword = KeywordIndex(table.texts)
    keyword_built = time.perf_counter()
    graph = store.name_graph()
    row_of = table.row_of()
    n = len(table)
    link_rows = np.asarray([(row_of[k.source_chunk], row_of[k.target_chunk], k.name_id) for k in graph.links
                            if k.source_chunk in row_of and k.target_chunk in row_of], dtype=np.int64).reshape(-1, 3)
    link_matrix = sparse.csr_matrix((link_rows[:, 2], (link_rows[:, 0], link_rows[:, 1])), shape=(n, n))
    rows_of_doc = rows_by_document(table.doc_ids)
    rows_named: dict[str, list[int]] = defaultdict(list)  # case-folded surface → rows
    display: dict[str, str] = {}  # case-folded surface → the name as a document writes it
    for name in graph.names:
        # In a question every name counts but noise-words: a hub like "United States" is still a
        # fine thing to look up when the question says it; it is only a poor *link* anchor.
        if name.doc_id is not None and name.filtered not in ("short", "numeric"):
            display.setdefault(name.surface.casefold(), name.surface)
            rows = rows_named[name.surface.casefold()]
            rows.extend(r for r in rows_of_doc.get(name.doc_id, []) if r not in rows)
    return SearchIndex(
        table=table, vectors=vectors, keyword=keyword, links=link_matrix,
        name_surfaces={name.id: name.surface for name in graph.names},
        question_names=MentionFinder(rows_named, casefold=True), rows_named=dict(rows_named),
        display_names=display, embedder=embedder,
        load_seconds={"vectors": loaded - started, "bm25": keyword_built - loaded,
                      "graph": time.perf_counter() - keyword_built})
