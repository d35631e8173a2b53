"""What a storage backend implements: five small protocols, one per kind of data, and `Store`, all five.

Code above the store sees only these protocols and the records they pass (hopgraph.records);
SQL of one dialect lives in its backend package alone (store/sqlite/, and later store/postgres/).
Every write method is one transaction: it happens entirely or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hopgraph.llm.cache import LLMCache
from hopgraph.records.communities import CommunityReport, CommunityTree
from hopgraph.records.documents import ChunkTable, DocumentChange, RunRecord, StoredDocument
from hopgraph.records.knowledge import (
    CarriedFacts,
    ChunkFacts,
    ChunkText,
    ExtractionFailure,
    KnowledgeGraph,
    MergeCandidate,
    MergeReview,
    Rechunking,
)
from hopgraph.records.names import GraphRows, NameGraph
from hopgraph.records.stats import StoreCounts, StoredRun

# Builds the name-link graph over the chunk table as it will be after an index run; called by
# `DocumentStore.apply` inside its transaction, so documents and their links change together.
GraphBuilder = Callable[[ChunkTable], GraphRows]
# Decides, inside the same transaction, which new chunks get the facts of the chunks an index run
# deleted (ingest/carry.py `carry_facts`): passed in, so the store knows no extractor's rules.
FactCarrier = Callable[[Rechunking], CarriedFacts]


class DocumentStore(Protocol):
    """Documents, chunks, their vectors, and the name-link graph over them."""

    @property
    def location(self) -> str:
        """Where the store lives, for messages (a file path or a URL)."""
        ...

    def active_documents(self) -> dict[tuple[str, str], StoredDocument]:
        """Documents not withdrawn, keyed by (source, title)."""
        ...

    def cached_vectors(self, text_hashes: Sequence[str], model: str) -> dict[str, np.ndarray]: ...

    def save_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None:
        """Commit embeddings at once: they are a cache, valid whatever happens to the index run."""
        ...

    def apply(self, change: DocumentChange, build_graph: GraphBuilder, meta: dict[str, str],
              run: RunRecord, carry: FactCarrier) -> GraphRows:
        """One transaction: apply the change, carry the facts of the chunks it deleted to its new
        chunks (`carry`), drop the vectors no chunk uses any more, rebuild the name graph over the
        result, write meta and run."""
        ...

    def chunk_table(self) -> ChunkTable: ...

    def chunk_columns(self) -> tuple[dict[str, np.ndarray], dict[str, dict[int, str]]]:
        """`chunk_table` without texts or hashes, as arrays (pages: -1 for none), and the
        documents' titles, sources and title sources by id."""
        ...

    def chunk_texts(self, chunk_ids: set[int] | list[int]) -> dict[int, str]: ...

    def chunk_citations(self, chunk_ids: set[int] | list[int]) -> dict[int, str]:
        """Chunk id → where a reader finds it (`report.pdf#p3`, records.documents.cite)."""
        ...

    def chunk_docs(self) -> dict[int, int]:
        """Chunk id → document id, for every stored chunk."""
        ...

    def vector_matrix(self, text_hashes: Sequence[str], model: str) -> np.ndarray:
        """One row per hash, in order; a missing vector is an error."""
        ...

    def name_graph(self) -> NameGraph: ...

    def cached_readings(self, text_hashes: Sequence[str], reader: str) -> dict[str, str]:
        """Stored readings of paragraphs (text hash → payload) by this reader version."""
        ...

    def save_readings(self, readings: dict[str, str], reader: str) -> None:
        """Commit paragraph readings at once: a cache keyed by text hash, like vectors."""
        ...

    def meta(self) -> dict[str, str]: ...

    def set_meta(self, values: dict[str, str]) -> None: ...


class KnowledgeStore(Protocol):
    """Raw facts per (chunk, extractor), the resolved knowledge graph, and merges awaiting review."""

    def save_facts(self, facts: Sequence[ChunkFacts]) -> list[int]:
        """Commit one batch of extraction results (and clear earlier failures of those chunks); the
        ids of chunks withdrawn meanwhile, whose results were dropped."""
        ...

    def replace_facts(self, extractor: str, facts: Sequence[ChunkFacts]) -> None:
        """This extractor's facts become exactly `facts` (a re-import)."""
        ...

    def drop_facts(self, extractors: Sequence[str]) -> None: ...

    def extractors(self) -> list[str]: ...

    def has_facts(self) -> bool: ...

    def has_knowledge_graph(self) -> bool: ...

    def record_failures(self, failures: Sequence[ExtractionFailure], extractor: str) -> None: ...

    def failures(self, extractor: str) -> list[ExtractionFailure]: ...

    def pending_chunks(self, extractor: str) -> list[ChunkText]:
        """Active chunks with no facts from this extractor yet, in id order."""
        ...

    def unextracted(self, extractor: str, chunk_ids: Sequence[int]) -> list[ChunkText]:
        """Those of these chunks (active ones) with no facts from this extractor yet, in the order given."""
        ...

    def graph_behind_facts(self) -> bool:
        """Whether facts changed after the stored graph was built (a run stopped before its rebuild)."""
        ...

    def load_facts(self, extractors: Sequence[str] | None = None) -> list[ChunkFacts]: ...

    def replace_knowledge_graph(self, graph: KnowledgeGraph, reviews: Sequence[MergeCandidate]) -> None:
        """The graph replaces the previous one (and its community tree), with a fresh `graph_generation`
        in the meta; new review candidates are added."""
        ...

    def knowledge_graph(self) -> KnowledgeGraph: ...

    def merge_reviews(self, status: str | None = "pending") -> list[MergeReview]: ...

    def decide_merge(self, review_id: int, accept: bool) -> bool: ...

    def merge_decisions(self) -> dict[tuple[str, str], bool]: ...


class CommunityStore(Protocol):
    """The community tree of the current graph, and reports kept by content hash across rebuilds."""

    def replace_communities(self, tree: CommunityTree, meta: dict[str, str] | None = None) -> None: ...

    def community_tree(self) -> CommunityTree | None: ...

    def save_reports(self, reports: Sequence[CommunityReport], model: str | None = None,
                     dropped: Sequence[str] = ()) -> None: ...

    def stored_reports(self, model: str) -> dict[str, CommunityReport]: ...


class ReplyStore(Protocol):
    """The LLM reply cache, opened by the store that holds it (never by file path)."""

    def reply_cache(self) -> LLMCache: ...


@runtime_checkable
class RouteStore(Protocol):
    """A backend that walks knowledge-graph paths itself (PostgreSQL: `WITH RECURSIVE`)."""

    def relation_routes(self, start: int, senses: dict[str, str], direction: str, max_hops: int,
                        max_paths: int, allowed: Collection[int] | None = None,
                        end_type: str | None = None) -> list[list[int]]:
        """Routes of relation ids from entity `start`, shortest first (query/paths.py has the rules)."""
        ...


@runtime_checkable
class RankingStore(Protocol):
    """A backend that ranks chunks itself (PostgreSQL: pgvector and a BM25 keyword index), so a search
    index can be served from it with nothing local (retrieval/database_index.py)."""

    def nearest_chunks(self, query: np.ndarray, model: str, k: int, exact: bool) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the k chunks nearest the query, best first: by an exact scan, or
        by the backend's ANN index."""
        ...

    def keyword_ranks(self, terms: Sequence[str], top: int) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the `top` chunks best matching the question's terms (text/bm25.py
        `keyword_terms`: the embedded store's own tokens), best first."""
        ...


class StatsStore(Protocol):
    """What the store holds, counted, with its size on disk and its run log (`hopgraph stats`)."""

    def counts(self) -> StoreCounts: ...

    def recent_runs(self, limit: int = 5) -> list[StoredRun]:
        """The last runs, newest first."""
        ...

    def record_run(self, command: str, started_at: str, summary: dict[str, Any]) -> None:
        """Log a finished command with what it did (index runs log themselves in `apply`)."""
        ...

    def disk_bytes(self) -> dict[str, int]:
        """Bytes on disk by part: `file` and `wal` (SQLite), `tables` (PostgreSQL); {} in memory."""
        ...


class Store(DocumentStore, KnowledgeStore, CommunityStore, ReplyStore, StatsStore, Protocol):
    """Everything hopgraph keeps: what `open_store` returns and `HopGraph` is typed against."""

    def waiting_at_most(self, seconds: float) -> AbstractContextManager[None]:
        """Write transactions begun inside wait at most `seconds` for another writer, then raise
        StoreBusy (a question's optional writes — a community tree, reports — wait for none)."""
        ...

    def close(self) -> None: ...
