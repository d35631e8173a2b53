"""Reports after a change: reuse every stored report whose community's content is unchanged, write
the others (by the LLM, or extractive), and label what has no labels yet.

Reports are stored by their community's content hash, so after an update only communities that
changed cost anything. Extractive ratings are relative to a level's largest community, so
extractive reports are reused all together or written all again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hopgraph.communities.labels import label_reports
from hopgraph.communities.reports import ReportRun, extractive_reports, llm_reports
from hopgraph.llm import LLMClient
from hopgraph.records.communities import EXTRACTIVE, CommunityReport, CommunityTree
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.store import Store

ChunkTexts = Callable[[Iterable[int]], dict[int, str]]


def refresh_reports(store: Store, graph: KnowledgeGraph, tree: CommunityTree, writer: LLMClient | None,
                    chunk_texts: ChunkTexts, report_tokens: int, progress: object = None) -> ReportRun:
    """A report per community of `tree`, stored; only new or changed ones are written and labelled."""
    stored = store.stored_reports(writer.model if writer else EXTRACTIVE)
    if writer is not None:
        run = llm_reports(graph, tree, writer, chunk_texts, report_tokens, stored, progress)  # type: ignore[arg-type]
    elif all(c.hash in stored for c in tree.communities):
        run = ReportRun([_at(stored[c.hash], c.id, c.level) for c in tree.communities])
    else:
        run, stored = ReportRun(extractive_reports(graph, tree, chunk_texts)), {}
    # Labels are computed once, for every report that has none (new, or stored before labels).
    labelled = {id(r) for r in label_reports(run.reports, graph, tree, chunk_texts)}
    store.save_reports([r for r in run.reports if r.hash not in stored or id(r) in labelled])
    current = {c.hash for c in tree.communities}
    run.reused = sum(c.hash in stored for c in tree.communities)
    run.dropped = len(set(stored) - current)
    return run


def _at(report: CommunityReport, community_id: int, level: int) -> CommunityReport:
    """A stored report placed at the community that has its content now (ids change per build)."""
    report.community_id, report.level = community_id, level
    return report
