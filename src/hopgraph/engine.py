"""`HopGraph`: the small facade over the index pipeline and the query modes.

It owns what is expensive to make and reuse — the store, the embedder, the in-memory search index,
the knowledge-graph view, the LLM client — makes each on first use, and drops what a write made
stale. Every public method checks its input once and then calls down once, handing the function
below exactly the data it needs; a question gets a `QueryContext` (query/context.py) and never this
facade.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from hopgraph.communities.incremental import current_tree
from hopgraph.communities.refresh import refresh_reports
from hopgraph.communities.reports import ReportRun, representative_chunks
from hopgraph.config import Settings, load_settings
from hopgraph.errors import HopgraphError
from hopgraph.ingest import indexing
from hopgraph.ingest.pipeline import IndexReport
from hopgraph.kg import build as kg_build
from hopgraph.kg.extractors.llm import ExtractReport, extract_pending
from hopgraph.kg.facts import Vocabulary
from hopgraph.llm import LLMCache, LLMClient, StepUsage
from hopgraph.plugins import load_plugins
from hopgraph.query import asking
from hopgraph.query.asking import Found, OnToken
from hopgraph.query.chains import ChainCheck, check_chain, parse_chains
from hopgraph.query.context import CorpusResult, QueryContext
from hopgraph.query.drift import DriftBudget, DriftResult, drift_search
from hopgraph.query.global_search import GlobalBudget, GlobalResult, global_search
from hopgraph.query.lazy import LazyBudget, LazyResult, lazy_global_search
from hopgraph.query.local import GraphView, LocalBudget, LocalResult
from hopgraph.query.paths import Follow, find_paths
from hopgraph.query.question import AskLimits, Question, check_question
from hopgraph.query.themes import ChunksOf
from hopgraph.records.answers import Answer
from hopgraph.records.communities import CommunityTree
from hopgraph.records.documents import Document, Skip
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.records.knowledge import Path as GraphPath
from hopgraph.records.names import GazetteerEntry
from hopgraph.records.retrieval import Retrieval
from hopgraph.retrieval.database_index import is_current
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.methods import parse_method
from hopgraph.retrieval.router import AUTO, Route
from hopgraph.retrieval.search_in import open_search_index
from hopgraph.store import Store, open_store
from hopgraph.store.base import RouteStore
from hopgraph.text.embed import CachedEmbedder, Embedder, make_embedder
from hopgraph.text.model_identity import check_store_embedder

T = TypeVar("T")
THEME_CHUNKS = 8  # a theme's supporting sentences come from its community's 8 most representative chunks


def never_waits(method: Callable[..., T]) -> Callable[..., T]:
    """A question's own writes — the community tree, reports and report vectors it made, all kept
    for the next question — are skipped, not waited for, while another command writes."""
    @functools.wraps(method)
    def run(self: HopGraph, *args: Any, **kwargs: Any) -> T:
        with self.store.waiting_at_most(0):
            return method(self, *args, **kwargs)
    return run


class HopGraph:
    """One store, one embedder: index documents, then ask questions in any mode.

    `create=False` opens only an existing store (what commands that only read use)."""

    def __init__(self, store: str | None = None, settings: Settings | None = None,
                 embedder: Embedder | None = None, quiet: bool = True, create: bool = True,
                 llm_cache: LLMCache | None = None) -> None:
        load_plugins()  # a plugin's ranker, reader or mode must be known before the first call
        self.settings = settings or load_settings()
        self.store: Store = open_store(store or self.settings.store, create, self.settings.lock_timeout)
        self.quiet = quiet
        self._embedder = embedder
        self._search_index: SearchIndex | None = None
        self._graph_view: GraphView | None = None
        self._llm: LLMClient | None = None
        # Where LLM replies are looked up and kept: the store's cache unless one is given (eval's
        # --record/--replay); settable until the first LLM call.
        self.llm_cache = llm_cache

    # --- what is made once and reused ------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def cached_embedder(self) -> CachedEmbedder:
        """The embedder behind the store's vector cache: texts embedded once (community reports)."""
        return CachedEmbedder(self.embedder, self.store)

    @property
    def search_index(self) -> SearchIndex:
        """Loaded on first use. One served from the database is checked against the store's
        generation at each use (one meta read) and loaded again when another process wrote."""
        if self._search_index is not None and not is_current(self._search_index, self.store):
            self._search_index = None
        if self._search_index is None:
            check_store_embedder(self.store.meta(), self.embedder)  # vectors of other weights never mix
            self._search_index = open_search_index(self.store, self.embedder, self.settings.search_in,
                                                   self.settings.ann_threshold)
        return self._search_index

    @property
    def graph_view(self) -> GraphView:
        if self._graph_view is None:
            self._graph_view = GraphView(self.store.knowledge_graph())
        return self._graph_view

    @property
    def knowledge_graph(self) -> KnowledgeGraph:
        return self.graph_view.graph

    @property
    def has_llm(self) -> bool:
        return bool(self.settings.llm_url and self.settings.llm_model)

    def llm(self) -> LLMClient:
        """The configured chat endpoint, with its replies cached in the store (one client per HopGraph)."""
        if not self.has_llm:
            raise HopgraphError("no LLM configured: set llm_url and llm_model in hopgraph.toml "
                                "(or HOPGRAPH_LLM_URL / HOPGRAPH_LLM_MODEL)")
        if self._llm is None:
            cache = self.llm_cache or self.store.reply_cache()
            self._llm = LLMClient(self.settings.llm_url, self.settings.llm_model, self.settings.llm_api_key,
                                  timeout=self.settings.llm_timeout, first_byte=self.settings.llm_first_byte,
                                  max_concurrency=self.settings.llm_concurrency, cache=cache)
        return self._llm

    @property
    def llm_usage(self) -> dict[str, StepUsage]:
        """What the LLM client has spent so far, by step ({} before the first call)."""
        return self._llm.usage if self._llm else {}

    def _llm_if_configured(self) -> LLMClient | None:
        return self.llm() if self.has_llm else None

    def chunk_texts(self, chunk_ids: Iterable[int]) -> dict[int, str]:
        return self.store.chunk_texts(list(chunk_ids))

    def vocabulary(self) -> Vocabulary:
        return Vocabulary.of(self.settings)

    # --- indexing ----------------------------------------------------------------------------------

    def index(self, paths: Sequence[str | Path], names_file: str | Path | None = None,
              follow_links: bool = False, reembed: bool = False) -> IndexReport:
        """Add or refresh the files and folders; a folder is the truth (ingest/sync.py): its files
        deleted or renamed since the last run are withdrawn. Unreadable files are skipped (all of
        them: an InputError), as are a folder's links to files or folders outside it unless
        `follow_links` (what a link brings in is stored under its path in the folder). `reembed`
        embeds every chunk again: a store whose vectors other weights made opens again."""
        return self._written(indexing.index_paths(self.store, self.embedder, paths, self.settings, names_file,
                                                  follow_links, self.quiet, reembed), reembed)

    def remove(self, targets: Sequence[str]) -> IndexReport:
        """Withdraw documents by id, file or folder: their chunks, the vectors of texts no other chunk
        holds, keyword entries, links, and the facts only they stated (the graph is rebuilt from what
        remains)."""
        self._catch_up_graph()  # a remove killed after its commit is finished before "not indexed" is said
        return self._written(indexing.remove_documents(self.store, self.embedder, targets, self.settings, self.quiet))

    def index_documents(self, docs: Sequence[Document], gazetteer: Sequence[GazetteerEntry] = (),
                        replace_sources: bool | Collection[str] = True, skipped: Sequence[Skip] = (),
                        withdraw: Collection[int] = (), reembed: bool = False) -> IndexReport:
        """Documents already read (ingest/indexing.add_documents): added or refreshed by source and title.
        `reembed` embeds every chunk again: a store whose vectors other weights made opens again."""
        return self._written(indexing.add_documents(self.store, self.embedder, docs, self.settings, gazetteer,
                                                    replace_sources, skipped, withdraw, self.quiet, reembed=reembed),
                             reembed)

    def _written(self, report: IndexReport, reembedded: bool = False) -> IndexReport:
        """What an index or remove run made stale is dropped (every vector, after a re-embedding),
        and the graph follows the facts."""
        if report.changed or report.links or report.names or reembedded:
            self._search_index = None
        if report.changed:  # facts carried to new chunks cite them in the store's graph now
            self._graph_view = None
        self._catch_up_graph()
        return report

    def _catch_up_graph(self) -> None:
        """Withdrawn or replaced chunks took their facts with them (the store marks that in the same
        transaction): the graph must follow, even to empty — also when the run that withdrew them was
        killed before it rebuilt the graph."""
        if self.store.graph_behind_facts():
            self.build_graph()

    # --- the knowledge graph -----------------------------------------------------------------------

    def extract(self, client: LLMClient | None = None, gleanings: int | None = None,
                progress: object = None, parse: bool = False) -> ExtractReport:
        """LLM extraction of every chunk not yet extracted by this model, then a graph rebuild. With
        `parse` (what `hopgraph extract` does) the parser's typed facts join the LLM's: an edge both
        state keeps both extractors on its source."""
        client = client or self.llm()
        rounds = self.settings.gleanings if gleanings is None else gleanings
        report = extract_pending(self.store, client, self.vocabulary(), rounds, progress,  # type: ignore[arg-type]
                                 self.settings.llm_job_deadline or None)
        if parse:
            kg_build.run_extractors(self.store, [kg_build.parse_extractor(self.vocabulary())], self.quiet)
        self.build_graph()
        return report

    def import_triples(self, path: str | Path) -> kg_build.ImportReport:
        report = kg_build.import_triples(self.store, self.embedder, Path(path), self.settings, self.quiet)
        self._search_index, self._graph_view = None, None
        return report

    def build_graph(self, use_embeddings: bool = True) -> kg_build.GraphReport:
        """Rebuild the knowledge graph from every stored fact. Embedding similarity is the last (and
        slowest) resolution step: a concept graph of thousands of noun phrases skips it."""
        report = kg_build.build_graph(self.store, self.embedder if use_embeddings else None, self.settings)
        self._graph_view = None
        return report

    def extract_concepts(self) -> kg_build.GraphReport:
        """The no-LLM concept graph over every chunk not yet processed (resumable), then a rebuild."""
        kg_build.extract_concepts(self.store, self.quiet)
        return self.build_graph(use_embeddings=False)

    def extract_without_llm(self) -> kg_build.GraphReport:
        """The no-LLM graph (resumable), then a rebuild: concepts (co-occurrence, for communities and
        lazy search) and the parser's typed facts (for paths)."""
        extractors = [kg_build.CONCEPT_EXTRACTOR, kg_build.parse_extractor(self.vocabulary())]
        kg_build.run_extractors(self.store, extractors, self.quiet)
        return self.build_graph()  # only stated names are embedded (kg/resolution.py): few of them

    def paths(self, to: str, direction: str = "in", max_hops: int = 2, max_paths: int = 200,
              end_type: str | None = None, follow: Follow = None,
              as_of: str | None = None) -> list[GraphPath]:
        walker = self.store if isinstance(self.store, RouteStore) else None  # PostgreSQL walks in SQL
        return find_paths(self.knowledge_graph, to, direction, max_hops, max_paths, end_type, follow, as_of, walker)

    def check_chains(self, text: str, as_of: str | None = None, where: str = "chains file") -> list[ChainCheck]:
        """Each chain of `text` (query/chains.py) checked hop by hop against the current graph."""
        graph = self.knowledge_graph
        return [check_chain(graph, chain, as_of, self.store.chunk_citations) for chain in parse_chains(text, where)]

    # --- communities and reports -------------------------------------------------------------------

    def communities(self, rebuild: bool = False, if_changed: float | None = None,
                    must_store: bool = True) -> CommunityTree:
        """The hierarchical Leiden tree of the current knowledge graph (built once, then stored); with
        `if_changed`, a graph changed in at most that share of its entities keeps its partition.
        Without `must_store` (a question's), a store another command holds is left unwritten."""
        self._catch_up_graph()
        return current_tree(self.store, lambda: self.knowledge_graph, self.settings.community_max_size,
                            self.settings.community_levels, rebuild, if_changed, must_store)

    def reports(self, use_llm: bool | None = None, progress: object = None, tree: CommunityTree | None = None,
                must_store: bool = True) -> ReportRun:
        """A report per community: by the LLM when one is configured (or `use_llm`), else extractive,
        with its labels. Reports are stored by content hash; only communities that changed are
        written (and labelled) again."""
        writer = self.llm() if (self.has_llm if use_llm is None else use_llm) else None
        return refresh_reports(self.store, self.knowledge_graph, tree or self.communities(must_store=must_store),
                               writer, self.chunk_texts, self.settings.report_tokens, progress, must_store)

    # --- questions ---------------------------------------------------------------------------------

    def ask(self, question: str | Question, mode: str = "auto", method: str | None = None,
            top: int | None = None, answer: bool = True, limits: AskLimits | None = None, *,
            found: Found | None = None, on_token: OnToken | None = None) -> Answer:
        """Answer in one mode (query/modes/); `auto` lets the router choose. A `method` asks for
        plain search with it. Search ends in an answer (the LLM's from the hits, or offline their
        best sentences, query/extractive.py) unless `answer` is False. `limits` bound this question
        only. Every mode returns the same `Answer`. Bad input raises InputError before any work is
        done; the LLM calls of one question share the `llm_deadline`. A `Question` made by
        `question` (and perhaps `routed`) is asked as it is, the other arguments ignored. `found`
        is told the answer so far once the mode has run, before search's answer is written; with an
        LLM, `on_token` is told search's answer piece by piece as the model writes it."""
        if not isinstance(question, Question):
            question = self.question(question, mode, method, top, answer, limits)
        return asking.ask(self._context(), question, found, on_token)

    def question(self, text: str, mode: str = "auto", method: str | None = None, top: int | None = None,
                 answer: bool = True, limits: AskLimits | None = None) -> Question:
        """The question checked once, for callers that look at it before asking (`POST /ask`)."""
        return asking.make_question(text, mode, method, top, answer, limits)

    def routed(self, question: Question) -> Question:
        """The question with its route, routed now unless it already was (asking it routes no more)."""
        return question if question.route else question.routed(self._context().route(question.text))

    def search(self, question: str, method: str = "hybrid+names+links", top: int | None = None,
               seeds: int | None = None, route: Route | None = None) -> Retrieval:
        """Ranked chunks by a retrieval method. `method="auto"` routes the question first (or takes
        the given `route`) and runs the method it chose."""
        spec = None if method.strip().lower() == AUTO else parse_method(method)
        return self._context().search(check_question(question), method, top, seeds, route, spec)

    def route(self, question: str) -> Route:
        """Lookup, multi-hop or global, with the signal that decided it; the LLM (if configured) is
        asked only when the cheap signals leave the question undecided."""
        return self._context().route(check_question(question))

    def local(self, question: str, budget: LocalBudget | None = None) -> LocalResult:
        return self._context().local(check_question(question), budget)

    def global_search(self, question: str, budget: GlobalBudget | None = None) -> GlobalResult:
        """A question about the whole collection, from community reports: map-reduce by the LLM when one
        is configured, else the findings of the most relevant reports, with their chunk citations."""
        return self._global(check_question(question), budget)

    @never_waits
    def _global(self, question: str, budget: GlobalBudget | None) -> GlobalResult:
        settings = self.settings
        budget = budget or GlobalBudget(level=settings.global_level, batch_tokens=settings.global_batch_tokens,
                                        context_tokens=settings.global_context_tokens)
        tree = self.communities(must_store=False)
        reports = self.reports(tree=tree, must_store=False).reports
        return global_search(question, reports, tree, budget, self._llm_if_configured(), self.cached_embedder,
                             self._representative_texts(tree))

    def _representative_texts(self, tree: CommunityTree) -> ChunksOf:
        """community id → the texts of its most representative chunks (where themes find their sentences)."""
        graph = self.knowledge_graph
        return lambda community_id: self.chunk_texts(
            representative_chunks(graph, tree.communities[community_id], THEME_CHUNKS))

    def lazy_global(self, question: str, budget: LazyBudget | None = None) -> LazyResult:
        """LazyGraphRAG global search: no reports, relevance tests over the community tree (by the LLM
        when one is configured, else by similarity), then an answer from the chunks that passed."""
        return self._lazy(check_question(question), budget)

    @never_waits
    def _lazy(self, question: str, budget: LazyBudget | None) -> LazyResult:
        return lazy_global_search(self.search_index, self.knowledge_graph, self.communities(must_store=False),
                                  question, budget, self._llm_if_configured())

    def drift(self, question: str, budget: DriftBudget | None = None) -> DriftResult:
        """DRIFT: a primer over the most relevant community reports, follow-ups answered by local search,
        then a ranked answer (by the LLM when one is configured, else extractive)."""
        return self._drift(check_question(question), budget)

    @never_waits
    def _drift(self, question: str, budget: DriftBudget | None) -> DriftResult:
        budget = budget or DriftBudget(followups=self.settings.drift_followups, depth=self.settings.drift_depth)
        local = self._context().local
        return drift_search(question, self.reports(must_store=False).reports, lambda q: local(q, budget.local),
                            budget, self._llm_if_configured(), self.cached_embedder)

    def _context(self) -> QueryContext:
        """What a question needs from this facade, made per call (cheap: the index, the graph view
        and the LLM client stay here, made once)."""
        return QueryContext(self.store, self.settings, lambda: self.search_index, lambda: self.graph_view,
                            self._llm_if_configured(), lambda texts: self.embedder.embed(texts), self._corpus,
                            self.build_graph)

    def _corpus(self, mode: str, question: str) -> CorpusResult:
        """Community search for a question already checked: the modes run it through the context."""
        run = {"global": self._global, "lazy": self._lazy, "drift": self._drift}[mode]
        return run(question, None)

    # --- lifetime ----------------------------------------------------------------------------------

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
            close_cache = getattr(self._llm.cache, "close", None)
            if close_cache is not None:
                close_cache()
        self.store.close()

    def __enter__(self) -> HopGraph:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


