"""`QueryContext`: what a question needs, handed down instead of the facade.

The facade (`HopGraph`) owns what is expensive to make — the store, the search index, the graph
view, the LLM client — and builds one context per call from them; the modes (query/modes/), the
ask pipeline (query/asking.py) and live extraction (query/live.py) take the context and never
reach back up. What is loaded lazily stays lazy: the index and the graph view are callables, and
the graph view is asked for again after a rebuild (live extraction makes one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from hopgraph.config import Settings
from hopgraph.kg.facts import Vocabulary
from hopgraph.llm import LLMClient, StepUsage
from hopgraph.query.local import GraphView, LocalBudget, LocalResult, local_search
from hopgraph.records.retrieval import Budget, Retrieval
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.methods import MethodSpec, run_method
from hopgraph.retrieval.router import AUTO, Route, run_auto
from hopgraph.retrieval.router import route as route_question
from hopgraph.store.base import Store


class CorpusResult(Protocol):
    """What global, lazy and DRIFT search all return (lazy's `retrieval` holds the chunks that passed)."""

    answer: str
    citations: list[int]
    mode: str
    used: dict[str, Any]
    errors: list[str]
    retrieval: Retrieval | None


CorpusSearch = Callable[[str, str], CorpusResult]  # ("global" | "lazy" | "drift", question) → result


@dataclass(frozen=True)
class QueryContext:
    """The search, the graph view, the LLM (or None), chunk texts and citations, and the settings'
    limits, for one call of the facade. Questions reaching it are already checked
    (query/question.py): nothing here checks them again."""

    store: Store
    settings: Settings
    index: Callable[[], SearchIndex]  # loaded on first use
    graph: Callable[[], GraphView]  # the current view: after a rebuild, a new one
    llm: LLMClient | None
    embed: Callable[[Sequence[str]], np.ndarray]  # texts → vectors (extractive answers)
    corpus: CorpusSearch  # community search: the facade's job, since it stores the tree and reports it makes
    rebuild_graph: Callable[[], object]  # the graph rebuilt from every stored fact

    def search(self, question: str, method: str, top: int | None = None, seeds: int | None = None,
               route: Route | None = None, spec: MethodSpec | None = None) -> Retrieval:
        """Ranked chunks by a retrieval method; `auto` runs the method of the given `route` (or
        routes first). `spec`: the method already parsed."""
        settings = self.settings
        budget = Budget(top=settings.top if top is None else top, seeds=settings.seeds if seeds is None else seeds)
        if method.strip().lower() == AUTO:
            return run_auto(self.index(), question, budget, settings.rrf_k, self.llm, route)
        return run_method(self.index(), question, method, budget, settings.rrf_k, spec)

    def route(self, question: str) -> Route:
        """Lookup, multi-hop or global; the LLM (if any) is asked only when the cheap signals do not decide."""
        return route_question(question, self.index(), self.llm)

    def local(self, question: str, budget: LocalBudget | None = None, search: Retrieval | None = None) -> LocalResult:
        """Local search; `search`: the question's hybrid hits when the caller already has them."""
        return local_search(self.graph(), self.index(), question, budget or LocalBudget(top=self.settings.top),
                            self.settings.rrf_k, search)

    def chunk_texts(self, chunk_ids: Iterable[int]) -> dict[int, str]:
        return self.store.chunk_texts(list(chunk_ids))

    def citations(self, chunk_ids: Iterable[int]) -> dict[int, str]:
        """Chunk id → where a reader finds it (`report.pdf#p3`)."""
        return self.store.chunk_citations(list(chunk_ids))

    def usage(self) -> dict[str, StepUsage]:
        """What the LLM client has spent so far, by step ({} without one)."""
        return self.llm.usage if self.llm else {}

    def vocabulary(self) -> Vocabulary:
        return Vocabulary.of(self.settings)
