"""`HopGraph`: the small facade over the pipeline steps and retrieval methods."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hopgraph import kg_build
from hopgraph.config import Settings, load_settings
from hopgraph.embed import CachedEmbedder, Embedder, make_embedder
from hopgraph.errors import HopgraphError
from hopgraph.extract.llm import ExtractReport, Vocabulary, extract_pending
from hopgraph.graph.communities import CommunityTree, build_communities
from hopgraph.graph.reports import EXTRACTIVE, CommunityReport, ReportRun, extractive_reports, llm_reports
from hopgraph.graph_answer import GraphAnswer, answer_question
from hopgraph.knowledge_graph import KnowledgeGraph
from hopgraph.llm import LLMClient, SQLiteLLMCache
from hopgraph.model import Budget, Document, Retrieval
from hopgraph.names import GazetteerEntry, read_gazetteer
from hopgraph.pipeline import IndexReport, index_documents, read_paths
from hopgraph.search.drift import DriftBudget, DriftResult, drift_search
from hopgraph.search.global_search import GlobalBudget, GlobalResult, global_search
from hopgraph.search.index import SearchIndex, load_search_index
from hopgraph.search.lazy_global import LazyBudget, LazyResult, lazy_global_search
from hopgraph.search.local import GraphView, LocalBudget, LocalResult, local_search
from hopgraph.search.methods import check_question, parse_method, run_method
from hopgraph.search.paths import Path as GraphPath
from hopgraph.search.paths import find_paths
from hopgraph.search.router import AUTO, Route, run_auto
from hopgraph.search.router import route as route_question
from hopgraph.store import open_store
from hopgraph.store.sqlite import SQLiteStore


class HopGraph:
    """One store, one embedder; index documents, then ask questions with any retrieval method."""

    def __init__(self, store: str | None = None, settings: Settings | None = None,
                 embedder: Embedder | None = None, quiet: bool = True) -> None:
        self.settings = settings or load_settings()
        self.store: SQLiteStore = open_store(store or self.settings.store)  # type: ignore[assignment]
        self.quiet = quiet
        self._embedder = embedder
        self._search_index: SearchIndex | None = None
        self._graph_view: GraphView | None = None
        self._llm: LLMClient | None = None

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
        if self._search_index is None:
            self._search_index = load_search_index(self.store, self.embedder)
        return self._search_index

    def index(self, paths: Sequence[str | Path], names_file: str | Path | None = None) -> IndexReport:
        gazetteer = read_gazetteer(Path(names_file)) if names_file else ()
        docs = read_paths(paths, self.quiet)
        if gazetteer:
            kg_build.save_gazetteer(self.store, gazetteer)
        return self.index_documents(docs, gazetteer)

    def index_documents(self, docs: Sequence[Document], gazetteer: Sequence[GazetteerEntry] = (),
                        replace_sources: bool = True) -> IndexReport:
        # The gazetteer given once with `index --names` stays in force for every later run.
        gazetteer = gazetteer or kg_build.stored_gazetteer(self.store)
        report = index_documents(self.store, self.embedder, docs, self.settings, gazetteer, self.quiet,
                                 replace_sources)
        if report.changed or report.links or report.names:
            self._search_index = None
        # Withdrawn or replaced chunks took their facts with them: the graph must follow (even to empty).
        if report.changed and (self.store.has_facts() or self.store.has_knowledge_graph()):
            self.build_graph()
        return report

    # --- knowledge graph ---------------------------------------------------------------------------

    def llm(self) -> LLMClient:
        """The configured chat endpoint, with its replies cached in the store (one client per HopGraph)."""
        if not self.has_llm:
            raise HopgraphError("no LLM configured: set llm_url and llm_model in hopgraph.toml "
                                "(or HOPGRAPH_LLM_URL / HOPGRAPH_LLM_MODEL)")
        if self._llm is None:
            self._llm = LLMClient(self.settings.llm_url, self.settings.llm_model, self.settings.llm_api_key,
                                  max_concurrency=self.settings.llm_concurrency,
                                  cache=SQLiteLLMCache(self.store.path))
        return self._llm

    @property
    def has_llm(self) -> bool:
        return bool(self.settings.llm_url and self.settings.llm_model)

    def vocabulary(self) -> Vocabulary:
        return Vocabulary.parse(self.settings.entity_types, self.settings.relation_types)

    def extract(self, client: LLMClient | None = None, gleanings: int | None = None,
                progress: object = None) -> ExtractReport:
        """LLM extraction of every chunk not yet extracted by this model, then a graph rebuild."""
        client = client or self.llm()
        rounds = self.settings.gleanings if gleanings is None else gleanings
        report = extract_pending(self.store, client, self.vocabulary(), rounds, progress)  # type: ignore[arg-type]
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
        from hopgraph.extract.concepts import EXTRACTOR, concept_facts
        from hopgraph.progress import counter

        stale = [e for e in self.store.extractors() if e.split("-")[0] == "nlp" and e != EXTRACTOR]
        self.store.drop_facts(stale)  # facts of an older concept extractor would duplicate the new ones
        pending = self.store.pending_chunks(EXTRACTOR)
        with counter("concepts", self.quiet) as update:
            for start in range(0, len(pending), 256):  # committed in batches: an interruption resumes
                batch = pending[start : start + 256]
                self.store.save_facts(concept_facts([c for c, _ in batch], [t for _, t in batch]))
                update(start + len(batch), len(pending))
        return self.build_graph(use_embeddings=False)

    @property
    def graph_view(self) -> GraphView:
        if self._graph_view is None:
            self._graph_view = GraphView(self.store.knowledge_graph())
        return self._graph_view

    @property
    def knowledge_graph(self) -> KnowledgeGraph:
        return self.graph_view.graph

    def paths(self, to: str, direction: str = "in", max_hops: int = 2, max_paths: int = 200,
              end_type: str | None = None, follow: dict[str, str] | None = None,
              as_of: str | None = None) -> list[GraphPath]:
        return find_paths(self.knowledge_graph, to, direction, max_hops, max_paths, end_type, follow, as_of)

    def chunk_texts(self, chunk_ids: set[int] | list[int]) -> dict[int, str]:
        return self.store.chunk_texts(chunk_ids)

    def graph_answer(self, question: str, mode: str, budget: LocalBudget | None = None) -> GraphAnswer:
        """`local` or `paths` evidence for a question, answered by the LLM if configured, else extractively."""
        return answer_question(self, question, mode, budget or LocalBudget(top=self.settings.top))

    def local(self, question: str, budget: LocalBudget | None = None) -> LocalResult:
        check_question(question)
        return local_search(self.graph_view, self.search_index, question, budget or LocalBudget(top=self.settings.top),
                            self.settings.rrf_k)

    # --- communities and reports -------------------------------------------------------------------

    def communities(self, rebuild: bool = False) -> CommunityTree:
        """The hierarchical Leiden tree of the current knowledge graph (built once, then stored)."""
        tree = None if rebuild else self.store.community_tree()
        if tree is None:
            graph = self.knowledge_graph
            if not graph.relations:
                raise HopgraphError("the knowledge graph has no relations yet: run `hopgraph extract` "
                                    "(the no-LLM concept graph, or the LLM's) or `hopgraph import-triples` first")
            tree = build_communities(graph, self.settings.community_max_size, self.settings.community_levels)
            self.store.replace_communities(tree)
        return tree

    def reports(self, use_llm: bool | None = None, progress: object = None) -> ReportRun:
        """A report per community: by the LLM when one is configured (or `use_llm`), else extractive.
        Reports are stored by content hash; only communities that changed are written again."""
        tree, graph = self.communities(), self.knowledge_graph
        writer = self.llm() if (self.has_llm if use_llm is None else use_llm) else None
        stored = self.store.stored_reports(writer.model if writer else EXTRACTIVE)
        if writer is not None:
            run = llm_reports(graph, tree, writer, self.chunk_texts, self.settings.report_tokens, stored,
                              progress)  # type: ignore[arg-type]
        else:
            # Extractive ratings are relative to a level's largest community: all or none are reused.
            if all(c.hash in stored for c in tree.communities):
                run = ReportRun([_at(stored[c.hash], c.id, c.level) for c in tree.communities])
            else:
                run, stored = ReportRun(extractive_reports(graph, tree, self.chunk_texts)), {}
        self.store.save_reports([r for r in run.reports if r.hash not in stored])
        return run

    def lazy_global(self, question: str, budget: LazyBudget | None = None) -> LazyResult:
        """LazyGraphRAG global search: no reports, relevance tests over the community tree (by the LLM
        when one is configured, else by similarity), then an answer from the chunks that passed."""
        question = check_question(question)
        client = self.llm() if self.has_llm else None
        return lazy_global_search(self.search_index, self.knowledge_graph, self.communities(), question,
                                  budget, client)

    def global_search(self, question: str, budget: GlobalBudget | None = None) -> GlobalResult:
        """A question about the whole collection, from community reports: map-reduce by the LLM when one
        is configured, else the findings of the most relevant reports, with their chunk citations."""
        question = check_question(question)
        settings = self.settings
        budget = budget or GlobalBudget(level=settings.global_level, batch_tokens=settings.global_batch_tokens,
                                        context_tokens=settings.global_context_tokens)
        reports = self.reports().reports
        client = self.llm() if self.has_llm else None
        return global_search(question, reports, self.communities(), budget, client, self.cached_embedder)

    def drift(self, question: str, budget: DriftBudget | None = None) -> DriftResult:
        """DRIFT: a primer over the most relevant community reports, follow-ups answered by local search,
        then a ranked answer (by the LLM when one is configured, else extractive)."""
        question = check_question(question)
        budget = budget or DriftBudget(followups=self.settings.drift_followups, depth=self.settings.drift_depth)
        reports = self.reports().reports
        client = self.llm() if self.has_llm else None
        return drift_search(question, reports, lambda q: self.local(q, budget.local), budget, client,
                            self.cached_embedder)

    def budget(self, top: int | None = None, seeds: int | None = None) -> Budget:
        return Budget(top=self.settings.top if top is None else top,
                      seeds=self.settings.seeds if seeds is None else seeds)

    def ask(self, question: str, method: str = "hybrid+names+links", top: int | None = None,
            seeds: int | None = None, route: Route | None = None) -> Retrieval:
        """Ranked chunks for the question; bad input raises InputError before any work is done.
        `method="auto"` routes the question first (see `route`; or takes the given `route`) and
        runs the method it chose."""
        if method.strip().lower() != AUTO:
            parse_method(method)
        check_question(question)
        if method.strip().lower() == AUTO:
            return run_auto(self.search_index, question, self.budget(top, seeds), self.settings.rrf_k,
                            self.llm() if self.has_llm else None, route)
        return run_method(self.search_index, question, method, self.budget(top, seeds), self.settings.rrf_k)

    def route(self, question: str) -> Route:
        """Lookup, multi-hop or global, with the signal that decided it; the LLM (if configured) is
        asked only when the cheap signals leave the question undecided."""
        return route_question(question, self.search_index, self.llm() if self.has_llm else None)

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
            if isinstance(self._llm.cache, SQLiteLLMCache):
                self._llm.cache.close()
        self.store.close()

    def __enter__(self) -> HopGraph:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _at(report: CommunityReport, community_id: int, level: int) -> CommunityReport:
    """A stored report placed at the community that has its content now (ids change per build)."""
    report.community_id, report.level = community_id, level
    return report
