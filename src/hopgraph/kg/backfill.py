"""`hopgraph extract --backfill`: the extraction job to run after every `index` (a re-crawl).

`extract` and the backfill read the same chunks: those with no facts row from the current extractor
(`llm:<model>`, or the no-LLM concept and parse extractors at their current versions). A chunk whose
reply named nothing has its empty row and is done; one whose reply failed has none and is asked again.
They differ in what surrounds that:

- `extract` always re-resolves the whole graph afterwards: it is how new merge thresholds, functional
  relations or a gazetteer take effect.
- the backfill rebuilds the graph only when facts changed since the stored graph was built — by this
  run, or by an earlier one stopped between its last batch and its rebuild (the store's
  `graph_behind_facts` mark, set in the transaction that writes facts). With nothing new it reads a
  few rows and leaves the store as it was, so it can run after every `index`.

Facts are committed a batch at a time and every LLM reply as it arrives (the store's reply cache), so a
backfill stopped by Ctrl-C or `kill -9` resumes at its first uncommitted batch and pays for no reply
twice; the resumed store equals an uninterrupted run's (tests/kg/test_backfill.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from hopgraph.config import Settings
from hopgraph.errors import HopgraphError
from hopgraph.kg.build import CONCEPT_EXTRACTOR, GraphReport, parse_extractor, run_extractors
from hopgraph.kg.extractors.llm import ExtractReport, extract_pending, nothing_extracted
from hopgraph.kg.facts import Vocabulary
from hopgraph.llm import LLMClient
from hopgraph.progress import counter
from hopgraph.store.base import Store


class Backfilled(Protocol):
    """What the backfill needs of the facade (`HopGraph` is one): named here, so that kg/ never
    imports the facade above it."""

    store: Store
    settings: Settings
    quiet: bool

    @property
    def has_llm(self) -> bool: ...

    def llm(self) -> LLMClient: ...

    def vocabulary(self) -> Vocabulary: ...

    def build_graph(self) -> GraphReport: ...


@dataclass
class BackfillReport:
    llm: ExtractReport | None  # None: no LLM, the concept and parse extractors ran alone
    graph: GraphReport | None  # None: no fact changed, the graph was left as it was
    resumed: bool  # an earlier run had stored facts and stopped before rebuilding the graph


def backfill(hg: Backfilled, use_llm: bool | None = None, gleanings: int | None = None) -> BackfillReport:
    """Extract the chunks no current extractor has read — by the LLM when one is configured (or
    `use_llm`), then the parser; without an LLM, concepts and the parser — and rebuild the graph if
    any fact changed. Ctrl-C stops it after the last committed batch, saying how far it got."""
    store = hg.store
    resumed = store.graph_behind_facts()
    extractors = [parse_extractor(hg.vocabulary())]
    report, done = None, [0, 0]
    try:
        if hg.has_llm if use_llm is None else use_llm:
            rounds = hg.settings.gleanings if gleanings is None else gleanings
            with counter("backfill", hg.quiet) as update:
                report = extract_pending(store, hg.llm(), hg.vocabulary(), rounds, _remembered(update, done),
                                         hg.settings.llm_job_deadline or None)
            if report.failed and not report.extracted:  # a server that is down is an error, not a result
                raise HopgraphError(nothing_extracted(report))
        else:
            extractors.insert(0, CONCEPT_EXTRACTOR)
        run_extractors(store, extractors, hg.quiet)
    except KeyboardInterrupt:
        raise HopgraphError(f"backfill stopped after {done[0]} of {done[1]} chunks, each batch before the "
                            "interruption committed: run `hopgraph extract --backfill` again to resume") from None
    graph = hg.build_graph() if store.graph_behind_facts() else None
    return BackfillReport(report, graph, resumed)


def _remembered(update: Callable[[int, int], None], done: list[int]) -> Callable[[int, int], None]:
    """The progress callback, keeping (done, total) in `done` so an interruption can say how far it got."""
    def progress(finished: int, total: int) -> None:
        done[:] = [finished, total]
        update(finished, total)
    return progress
