"""`HopGraph`: the small facade over the pipeline steps and retrieval methods."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hopgraph.config import Settings, load_settings
from hopgraph.embed import Embedder, make_embedder
from hopgraph.model import Budget, Document, Retrieval
from hopgraph.names import GazetteerEntry, read_gazetteer
from hopgraph.pipeline import IndexReport, index_documents, read_paths
from hopgraph.search.index import SearchIndex, load_search_index
from hopgraph.search.methods import check_question, parse_method, run_method
from hopgraph.store import Store, open_store


class HopGraph:
    """One store, one embedder; index documents, then ask questions with any retrieval method."""

    def __init__(self, store: str | None = None, settings: Settings | None = None,
                 embedder: Embedder | None = None, quiet: bool = True) -> None:
        self.settings = settings or load_settings()
        self.store: Store = open_store(store or self.settings.store)
        self.quiet = quiet
        self._embedder = embedder
        self._search_index: SearchIndex | None = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def search_index(self) -> SearchIndex:
        if self._search_index is None:
            self._search_index = load_search_index(self.store, self.embedder)
        return self._search_index

    def index(self, paths: Sequence[str | Path], names_file: str | Path | None = None) -> IndexReport:
        gazetteer = read_gazetteer(Path(names_file)) if names_file else ()
        docs = read_paths(paths, self.quiet)
        return self.index_documents(docs, gazetteer)

    def index_documents(self, docs: Sequence[Document], gazetteer: Sequence[GazetteerEntry] = (),
                        replace_sources: bool = True) -> IndexReport:
        report = index_documents(self.store, self.embedder, docs, self.settings, gazetteer, self.quiet,
                                 replace_sources)
        if report.changed or report.links or report.names:
            self._search_index = None
        return report

    def budget(self, top: int | None = None, seeds: int | None = None) -> Budget:
        return Budget(top=self.settings.top if top is None else top,
                      seeds=self.settings.seeds if seeds is None else seeds)

    def ask(self, question: str, method: str = "hybrid+names+links", top: int | None = None,
            seeds: int | None = None) -> Retrieval:
        """Ranked chunks for the question; bad input raises InputError before any work is done."""
        parse_method(method)
        check_question(question)
        return run_method(self.search_index, question, method, self.budget(top, seeds), self.settings.rrf_k)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> HopGraph:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
