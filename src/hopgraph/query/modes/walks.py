"""`ask --mode local|paths`: live extraction of the unread top hits (query/live.py), the walk, and
its fall-open (query/fallopen.py) — to the facts of the top hits, then to hybrid search — each step
said in `Answer.note` (and live extraction counted in `Answer.details`). The question's hybrid
search runs once: live extraction reads its top hits, and the walk or its fall-open uses it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict

from hopgraph.query.context import QueryContext
from hopgraph.query.fallopen import as_paths, facts_of_hits, hits_stating
from hopgraph.query.live import LiveExtraction, extract_live
from hopgraph.query.local import LocalBudget, LocalResult, answer_local, search_depth
from hopgraph.query.modes.corpus import ASKED_FOR
from hopgraph.query.paths import answer_from_paths, answer_paths
from hopgraph.query.question import FALLBACK_METHOD, Question
from hopgraph.query.writers import with_dropped
from hopgraph.records.answers import Answer
from hopgraph.records.retrieval import Retrieval, TraceStep

TO_FACTS = "fell open to the facts of the top hits"
TO_SEARCH = f"the top hits state no facts; fell open to {FALLBACK_METHOD} search"


def run_local(ctx: QueryContext, question: Question) -> Answer:
    """A `local` answer from the graph, brought up to date with the top hits first."""
    top, limits, default = question.top or ctx.settings.top, question.limits, LocalBudget()
    budget = LocalBudget(max_hops=limits.max_hops or default.max_hops,
                         max_nodes=limits.max_nodes or default.max_nodes, top=top)
    search = ctx.search(question.text, FALLBACK_METHOD, search_depth(budget), limits.seeds)
    live = extract_live(ctx, lambda: search.hits[:top])
    result = ctx.local(question.text, budget, search)
    note = result.fell_open
    if result.fell_open:
        result, note = _local_fall_open(ctx, result)
    graph = ctx.graph().graph
    answer = answer_local(question.text, result, graph, ctx.chunk_texts, ctx.llm)
    asked = Answer(question.text, "local", ASKED_FOR, result.retrieval, answer.text, list(answer.citations),
                   answer.mode, note=with_dropped(note, answer.dropped))
    return _with_live(asked, live)


def _with_live(asked: Answer, live: LiveExtraction) -> Answer:
    if live.note():
        asked.details["live_extraction"] = asdict(live)
        asked.note = "; ".join(part for part in (live.note(), asked.note) if part)
    return asked


def _local_fall_open(ctx: QueryContext, result: LocalResult) -> tuple[LocalResult, str]:
    """The walk found nothing: the facts its top hybrid hits state, else those hits as they are."""
    hits = result.retrieval.hits
    relations = facts_of_hits(ctx.graph().graph, hits)
    if not relations:
        return result, f"{result.fell_open}; {TO_SEARCH}"
    stating = hits_stating(hits, relations)
    trace = [*result.retrieval.trace,
             TraceStep("facts of the top hits", 0.0, f"{len(relations)} relation(s) from {len(stating)} hit(s)")]
    return (LocalResult(Retrieval("local", stating, trace), [], relations, result.fell_open),
            f"{result.fell_open}; {TO_FACTS}")


def run_paths(ctx: QueryContext, question: Question) -> Answer:
    """A `paths` answer from the graph, brought up to date with the top hits first."""
    top = question.top or ctx.settings.top
    search = functools.cache(lambda: ctx.search(question.text, FALLBACK_METHOD, top, question.limits.seeds))
    live = extract_live(ctx, lambda: search().hits)
    return _with_live(_paths(ctx, question.text, search), live)


def _paths(ctx: QueryContext, question: str, search: Callable[[], Retrieval]) -> Answer:
    view = ctx.graph()
    answer, found, note = answer_paths(question, view, ctx.chunk_texts, ctx.llm)
    if found:
        return Answer(question, "paths", ASKED_FOR, None, answer.text, list(answer.citations), answer.mode, found,
                      note=with_dropped(note, answer.dropped))
    # No entity of the question, or no route into one: the facts of the top hits, else search answers.
    reason, hybrid = note or "no path", search()
    relations = facts_of_hits(view.graph, hybrid.hits)
    if not relations:
        return Answer(question, "search", ASKED_FOR, hybrid, note=f"paths: {reason}; {TO_SEARCH}")
    paths = as_paths(view.graph, relations, hybrid.hits)
    answer = answer_from_paths(question, paths, view.graph, ctx.chunk_texts, ctx.llm)
    return Answer(question, "paths", ASKED_FOR, hybrid, answer.text, list(answer.citations), answer.mode, paths,
                  note=with_dropped(f"paths: {reason}; {TO_FACTS}", answer.dropped))
