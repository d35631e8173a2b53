"""Reports after a change: reuse every stored report whose community's content is unchanged, write
the others (by the LLM, or extractive), and label what has no labels yet.

Reports are stored by their community's content hash, so after an update only communities that
changed cost anything. Extractive reports cost no model call: after a change all are computed again
(a rating is relative to its level's largest community, so an unchanged community's report can
still change), and a stored one is kept wherever the new one says the same — its labels with it. Reports of
communities that are gone are dropped from the store; an LLM's are still in the reply cache, so a
community that comes back costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import replace

from hopgraph.communities.labels import ChunkPhrases, label_reports
from hopgraph.communities.reports import ReportRun, extractive_reports, llm_reports
from hopgraph.errors import StoreBusy
from hopgraph.llm import LLMClient
from hopgraph.records.communities import EXTRACTIVE, CommunityReport, CommunityTree
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.store import Store
from hopgraph.text import noun_phrases
from hopgraph.text.nlp import parser_available

ChunkTexts = Callable[[Iterable[int]], dict[int, str]]


def refresh_reports(store: Store, graph: KnowledgeGraph, tree: CommunityTree, writer: LLMClient | None,
                    chunk_texts: ChunkTexts, report_tokens: int, progress: object = None,
                    must_store: bool = True) -> ReportRun:
    """A report per community of `tree`, stored; only new or changed ones are written and labelled.
    Without `must_store` (a question's reports), a store another command holds is left as it is."""
    model = writer.model if writer else EXTRACTIVE
    stored = store.stored_reports(model)
    if writer is not None:
        run = llm_reports(graph, tree, writer, chunk_texts, report_tokens, stored, progress)  # type: ignore[arg-type]
    elif all(c.hash in stored for c in tree.communities):  # nothing changed, so no rating either
        run = ReportRun([_at(stored[c.hash], c.id, c.level) for c in tree.communities])
    else:
        fresh = extractive_reports(graph, tree, chunk_texts)
        run = ReportRun([_at(stored[r.hash], r.community_id, r.level) if _says_the_same(stored.get(r.hash), r) else r
                         for r in fresh])
    kept = {id(r) for r in run.reports if _says_the_same(stored.get(r.hash), r)}
    # Labels are computed once, for every report that has none (new, or stored before labels).
    labelled = {id(r) for r in label_reports(run.reports, graph, tree, chunk_texts, stored_noun_phrases(store))}
    gone = sorted(set(stored) - {c.hash for c in tree.communities})
    run.reused, run.dropped = len(kept), len(gone)
    try:
        store.save_reports([r for r in run.reports if id(r) not in kept or id(r) in labelled], model, gone)
    except StoreBusy:
        if must_store:
            raise
        run.dropped = 0  # nothing was deleted: another command holds the store
    return run


def stored_noun_phrases(store: Store) -> ChunkPhrases | None:
    """Each chunk's noun phrases, parsed once per chunk text and kept in the store's readings (by
    text hash): a later labelling reads them instead of parsing the corpus again. None without spaCy
    (labels are n-grams then)."""
    if not parser_available():
        return None

    def phrases(texts: dict[int, str]) -> dict[int, list[str]]:
        wanted = [noun_phrases.text_hash(t) for t in texts.values()]
        found, new = noun_phrases.cached_phrases(texts, store.cached_readings(wanted, noun_phrases.VERSION))
        if new:
            with suppress(StoreBusy):  # another command holds the store: parsed again next time
                store.save_readings(new, noun_phrases.VERSION)
        return found

    return phrases


def _says_the_same(stored: CommunityReport | None, report: CommunityReport) -> bool:
    """Whether a stored report says what `report` says (its place and labels aside)."""
    return stored is not None and _content(stored) == _content(report)


def _content(report: CommunityReport) -> tuple:
    return report.title, report.summary, report.rating, report.entities, report.relations, report.findings


def _at(report: CommunityReport, community_id: int, level: int) -> CommunityReport:
    """A stored report placed at the community that has its content now (ids change per build)."""
    return replace(report, community_id=community_id, level=level)
