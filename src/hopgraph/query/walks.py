"""`ask --mode local|paths` for the facade: live extraction of the unread top hits (query/live.py),
the walk, and its fall-open (query/fallopen.py) — to the facts of the top hits, then to hybrid search —
each step said in `Answer.note` (and live extraction counted in `Answer.details`).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from hopgraph.query.ask import FALLBACK_METHOD, NO_LIMITS, AskLimits
from hopgraph.query.fallopen import as_paths, facts_of_hits, hits_stating
from hopgraph.query.live import extract_live
from hopgraph.query.local import LocalBudget, LocalResult, answer_local
from hopgraph.query.paths import answer_from_paths, answer_paths
from hopgraph.query.writers import with_dropped
from hopgraph.records.answers import Answer
from hopgraph.records.retrieval import Retrieval, TraceStep

if TYPE_CHECKING:
    from hopgraph.engine import HopGraph

TO_FACTS = "fell open to the facts of the top hits"
TO_SEARCH = f"the top hits state no facts; fell open to {FALLBACK_METHOD} search"


def ask_walk(hg: HopGraph, question: str, mode: str, why: str, top: int | None,
             limits: AskLimits = NO_LIMITS) -> Answer:
    """A `local` or `paths` answer from the graph, brought up to date with the top hits first."""
    top = top or hg.settings.top
    live = extract_live(hg, question, top)
    asked = _local(hg, question, why, top, limits) if mode == "local" else _paths(hg, question, why, top, limits)
    if live.note():
        asked.details["live_extraction"] = asdict(live)
        asked.note = "; ".join(part for part in (live.note(), asked.note) if part)
    return asked


def _local(hg: HopGraph, question: str, why: str, top: int, limits: AskLimits) -> Answer:
    default = LocalBudget()
    result = hg.local(question, LocalBudget(max_hops=limits.max_hops or default.max_hops,
                                            max_nodes=limits.max_nodes or default.max_nodes, top=top))
    note = result.fell_open
    if result.fell_open:
        result, note = _local_fall_open(hg, result)
    client = hg.llm() if hg.has_llm else None
    answer = answer_local(question, result, hg.knowledge_graph, hg.chunk_texts, client)
    return Answer(question, "local", why, result.retrieval, answer.text, list(answer.citations), answer.mode,
                  note=with_dropped(note, answer.dropped))


def _local_fall_open(hg: HopGraph, result: LocalResult) -> tuple[LocalResult, str]:
    """The walk found nothing: the facts its top hybrid hits state, else those hits as they are."""
    hits = result.retrieval.hits
    relations = facts_of_hits(hg.knowledge_graph, hits)
    if not relations:
        return result, f"{result.fell_open}; {TO_SEARCH}"
    stating = hits_stating(hits, relations)
    trace = [*result.retrieval.trace,
             TraceStep("facts of the top hits", 0.0, f"{len(relations)} relation(s) from {len(stating)} hit(s)")]
    return (LocalResult(Retrieval("local", stating, trace), [], relations, result.fell_open),
            f"{result.fell_open}; {TO_FACTS}")


def _paths(hg: HopGraph, question: str, why: str, top: int, limits: AskLimits) -> Answer:
    client = hg.llm() if hg.has_llm else None
    answer, found, note = answer_paths(question, hg.graph_view, hg.chunk_texts, client)
    if found:
        return Answer(question, "paths", why, None, answer.text, list(answer.citations), answer.mode, found,
                      note=with_dropped(note, answer.dropped))
    # No entity of the question, or no route into one: the facts of the top hits, else search answers.
    reason, search = note or "no path", hg.search(question, FALLBACK_METHOD, top, limits.seeds)
    relations = facts_of_hits(hg.knowledge_graph, search.hits)
    if not relations:
        return Answer(question, "search", why, search, note=f"paths: {reason}; {TO_SEARCH}")
    paths = as_paths(hg.knowledge_graph, relations, search.hits)
    answer = answer_from_paths(question, paths, hg.knowledge_graph, hg.chunk_texts, client)
    return Answer(question, "paths", why, search, answer.text, list(answer.citations), answer.mode, paths,
                  note=with_dropped(f"paths: {reason}; {TO_FACTS}", answer.dropped))
