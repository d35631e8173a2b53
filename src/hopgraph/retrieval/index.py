"""The view of a store that queries run against, and how it is built from the store.

Vectors are one float32 matrix (searched exactly, or through an ANN index above a size:
retrieval/vector_search.py), BM25 is built from the chunk texts, and the name-link graph is a
scipy CSR matrix of chunk rows. Building reads every chunk; retrieval/snapshot.py keeps what is
built on disk so that later processes read it back instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

import numpy as np
from scipy import sparse

from hopgraph.errors import HopgraphError
from hopgraph.linkgraph.names import MentionFinder
from hopgraph.linkgraph.ppr import MentionGraph, build_mention_graph
from hopgraph.records.documents import ChunkTable, rows_by_document
from hopgraph.records.names import AboutColumns, LinkColumns, NameGraph
from hopgraph.retrieval.partial_names import PartialNames
from hopgraph.retrieval.vector_search import ExactSearch, VectorSearch
from hopgraph.store.base import DocumentStore
from hopgraph.text.bm25 import KeywordIndex
from hopgraph.text.embed import Embedder
from hopgraph.text.tokens import count_tokens


class KeywordSearch(Protocol):
    """What ranks chunks by the question's words: BM25 in memory (text/bm25.py), or the same BM25
    in the database (retrieval/database_index.py)."""

    def scores(self, query: str) -> np.ndarray:
        """One score per chunk row, 0 where no word of the query occurs."""
        ...


@dataclass
class SearchIndex:
    table: ChunkTable
    vectors: np.ndarray  # (n_chunks, dim), L2-normalised; (0, 0) when the database ranks vectors
    keyword: KeywordSearch
    links: sparse.csr_matrix  # (source row, target row) → id of the name that made the link (≥ 1)
    link_weights: sparse.csr_matrix  # the same pattern → the link's weight (its target's aboutness)
    name_surfaces: dict[int, str]  # name id → surface
    question_names: MentionFinder  # finds document names in a question
    rows_named: dict[str, list[int]]  # case-folded surface → the chunk rows most about it
    display_names: dict[str, str]  # case-folded surface → the surface as written in the corpus
    partial_names: PartialNames  # names a question writes in part (retrieval/partial_names.py)
    embedder: Embedder
    load_seconds: dict[str, float] = field(default_factory=dict)
    vector_search: VectorSearch | None = None  # exact over `vectors` unless an ANN index is given
    # "built" from the store, "snapshot" (read back: retrieval/snapshot.py), or "database" (ranked
    # by the store itself: retrieval/database_index.py)
    origin: str = "built"
    generation: str | None = None  # the store's generation it was loaded at (a database-served index)
    mention_graphs: dict[float, MentionGraph] = field(default_factory=dict)  # by reverse weight
    token_counts: dict[int, int] = field(default_factory=dict)  # row → tokens, filled as hits need them

    def __post_init__(self) -> None:
        if self.vector_search is None:
            self.vector_search = ExactSearch(self.vectors)

    def __len__(self) -> int:
        return len(self.table)

    @cached_property
    def row_of_chunk(self) -> dict[int, int]:
        return self.table.row_of()

    @cached_property
    def _document_lengths(self) -> tuple[np.ndarray, np.ndarray]:
        """(document ids sorted, their chunk counts), counted once."""
        return np.unique(np.asarray(self.table.doc_ids), return_counts=True)

    def longest_document(self) -> int:
        """The chunk count of the index's longest document (0 for an empty index)."""
        _, counts = self._document_lengths
        return int(counts.max()) if len(counts) else 0

    def chunks_in_document(self, doc_ids: list[int]) -> list[int]:
        """How many chunks each document has (0 for one the index does not hold)."""
        docs, counts = self._document_lengths
        at = _rows_of(docs, np.asarray(doc_ids, dtype=np.int64))  # each document's place, or -1
        return np.where(at >= 0, counts[np.maximum(at, 0)], 0).tolist() if len(docs) else [0] * len(doc_ids)

    def mention_graph(self, reverse_weight: float = 1.0) -> MentionGraph:
        """The Personalized PageRank graph (chunks + linking names), built on first use per weight of
        walking a link backwards (a few ms) and kept for the life of the index."""
        graph = self.mention_graphs.get(reverse_weight)
        if graph is None:
            started = time.perf_counter()
            graph = self.mention_graphs[reverse_weight] = build_mention_graph(self.links, reverse_weight,
                                                                              self.link_weights)
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


def build_search_index(store: DocumentStore, embedder: Embedder) -> SearchIndex:
    """Everything from the store: every chunk text, vector and link (exact vector search)."""
    started = time.perf_counter()
    table = store.chunk_table()
    if not len(table):
        raise HopgraphError(f"{store.location} holds no documents yet: "
                            f"run `hopgraph index PATH...` first")
    vectors = store.vector_matrix(table.text_hashes, embedder.name)
    loaded = time.perf_counter()
    keyword = KeywordIndex(table.texts)
    keyword_built = time.perf_counter()
    graph = name_graph_fields(table, store.name_graph())
    return SearchIndex(table=table, vectors=vectors, keyword=keyword, **graph, embedder=embedder,
                       load_seconds={"vectors": loaded - started, "bm25": keyword_built - loaded,
                                     "graph": time.perf_counter() - keyword_built})


def name_graph_fields(table: ChunkTable, graph: NameGraph) -> dict[str, Any]:
    """The SearchIndex fields made from the name graph over the table's rows: the link matrices,
    the name surfaces and the question-name lookups."""
    n = len(table)
    sources, targets, name_ids, weights = _link_rows(table.ids, graph.links)
    # a store written before aboutness names whole documents: only then are they grouped
    rows_of_doc = {} if len(graph.abouts) else rows_by_document(table.doc_ids)
    rows_named = _rows_named(graph, table.ids, rows_of_doc)
    display = {name.surface.casefold(): name.surface for name in reversed(graph.names)
               if name.surface.casefold() in rows_named}
    return {"links": _csr(name_ids, sources, targets, n), "link_weights": _csr(weights, sources, targets, n),
            "name_surfaces": {name.id: name.surface for name in graph.names},
            "question_names": MentionFinder(rows_named, casefold=True), "rows_named": rows_named,
            "display_names": display, "partial_names": PartialNames(rows_named)}


def _link_rows(ids: np.ndarray, links: LinkColumns) -> tuple[np.ndarray, ...]:
    """(source rows, target rows, name ids, weights) of the links whose two chunks are rows of the
    table, in the links' order: array lookups, since a replica does this for every link of the
    store each time another process writes (370k links at 100k chunks)."""
    sources, targets = _rows_of(ids, links.source_chunk), _rows_of(ids, links.target_chunk)
    kept = (sources >= 0) & (targets >= 0)
    return sources[kept], targets[kept], links.name_id[kept], links.weight[kept]


def _rows_of(ids: np.ndarray, chunk_ids: np.ndarray) -> np.ndarray:
    """The position in `ids` of each of `chunk_ids` (a chunk's table row), -1 for one `ids` does not
    hold (a chunk written since the table was loaded)."""
    if not len(ids):
        return np.full(len(chunk_ids), -1, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    at = np.minimum(np.searchsorted(ids[order], chunk_ids), len(ids) - 1)
    return np.where(ids[order][at] == chunk_ids, order[at], -1)


def _csr(data: np.ndarray, sources: np.ndarray, targets: np.ndarray, n: int) -> sparse.csr_matrix:
    matrix = sparse.csr_matrix((np.asarray(data), (np.asarray(sources, dtype=np.int64),
                                                   np.asarray(targets, dtype=np.int64))), shape=(n, n))
    matrix.sort_indices()  # the name and weight matrices share one pattern, entry for entry
    return matrix


def _rows_named(graph: NameGraph, ids: np.ndarray, rows_of_doc: dict[int, list[int]]) -> dict[str, list[int]]:
    """Case-folded surface → the chunk rows most about it (every namesake's, best weight first).

    In a question every name counts but noise-words: a hub like "United States" is still a fine
    thing to look up when the question says it; it is only a poor *link* anchor. A store without
    aboutness rows (written before them) names every chunk of the document."""
    surfaces: dict[str, int] = {}  # case-folded surface → its number, in the order names first say it
    surface_of_name: dict[int, int] = {}
    hub_short_forms = _hub_short_forms(graph)
    for name in graph.names:
        folded = name.surface.casefold()
        if name.doc_id is not None and name.filtered not in ("short", "numeric") and folded not in hub_short_forms:
            surface_of_name[name.id] = surfaces.setdefault(folded, len(surfaces))
    if len(graph.abouts):
        surface, rows, weights = _about_rows(graph.abouts, ids, surface_of_name)
    else:
        pairs = [(surface_of_name[n.id], r) for n in graph.names if n.id in surface_of_name
                 for r in rows_of_doc.get(n.doc_id or 0, [])]
        surface = np.array([s for s, _ in pairs], dtype=np.int64)
        rows = np.array([r for _, r in pairs], dtype=np.int64)
        weights = np.ones(len(pairs))
    # Per surface, only the rows at its best weight (a row's weight is its best namesake's).
    best = np.full(len(surfaces), -np.inf)
    np.maximum.at(best, surface, weights)
    kept = weights == best[surface]
    surface, rows = surface[kept], rows[kept]
    order = np.lexsort((rows, surface))
    surface, rows = surface[order], rows[order]
    first = np.ones(len(surface), dtype=bool)  # a row once per surface
    first[1:] = (surface[1:] != surface[:-1]) | (rows[1:] != rows[:-1])
    surface, rows = surface[first], rows[first]
    bounds = np.searchsorted(surface, np.arange(len(surfaces) + 1))
    row_list = rows.tolist()
    return {text: row_list[bounds[i]:bounds[i + 1]] for text, i in surfaces.items() if bounds[i] < bounds[i + 1]}


def _hub_short_forms(graph: NameGraph) -> set[str]:
    """One-word names that begin a hub's name, case-folded: "Corvane" of "Corvane Brake Systems",
    which 8 of the 36 supplier documents mention. A question's "Corvane's" means the hub, whose
    chunks are many, and the chunk most about the bare word (a headline that opens "Corvane Takes a
    Stake …") is not the question's subject: the short form is not looked up, the hub's full name
    still is (issue 21, sup-06)."""
    hubs = {name.surface.casefold() for name in graph.names if name.filtered == "common" and " " in name.surface}
    return {hub.split(" ", 1)[0] for hub in hubs} - hubs


def _about_rows(abouts: AboutColumns, ids: np.ndarray,
                surface_of_name: dict[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(surface number, row, aboutness) of every aboutness entry whose chunk is a row of the table
    and whose name is looked up (`surface_of_name`): array lookups, no loop over the entries."""
    rows = _rows_of(ids, abouts.chunk_id)
    name_ids = np.fromiter(surface_of_name, dtype=np.int64, count=len(surface_of_name))
    numbers = np.fromiter(surface_of_name.values(), dtype=np.int64, count=len(surface_of_name))
    at = _rows_of(name_ids, abouts.name_id)  # each entry's place among the names looked up, or -1
    kept = (at >= 0) & (rows >= 0)
    return numbers[at[kept]], rows[kept], abouts.weight[kept]
