"""`HopGraph.ask` for the facade: run one mode (or let the router pick), end search in an answer,
and account for what the question cost. The modes' policy (which mode, when `auto` falls open) is
query/ask.py's; this module only runs it against a `HopGraph`, through its public methods.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from typing import TYPE_CHECKING

from hopgraph.errors import HopgraphError
from hopgraph.llm import StepUsage, usage_since
from hopgraph.query import ask as modes
from hopgraph.query.extractive import extractive_answer
from hopgraph.query.iterative import IterativeBudget, iterative_search
from hopgraph.query.walks import ask_walk
from hopgraph.query.writers import llm_answer_from_hits, spend_of, with_dropped
from hopgraph.records.answers import Answer, Spend
from hopgraph.retrieval.methods import check_question, parse_method
from hopgraph.retrieval.router import AUTO

if TYPE_CHECKING:
    from hopgraph.engine import HopGraph


def answer_question(hg: HopGraph, question: str, mode: str = "auto", method: str | None = None,
                    top: int | None = None, answer: bool = True, limits: modes.AskLimits | None = None) -> Answer:
    """What `HopGraph.ask` returns (see there); bad input raises InputError before any work."""
    question, mode, limits = check_question(question), modes.check_mode(mode), limits or modes.NO_LIMITS
    started, before = time.perf_counter(), hg.llm_usage
    if method is not None:
        mode = "search" if mode == "auto" else mode
        if method.strip().lower() != AUTO:
            parse_method(method)
    client = hg.llm() if hg.has_llm else None
    with client.deadline(hg.settings.llm_deadline or None) if client else nullcontext():
        if mode == "auto":
            asked = modes.auto(question, hg.route(question),
                               lambda why: _answer(hg, question, "global", why),
                               lambda chosen, route: hg.search(question, chosen, top, limits.seeds, route))
        else:
            asked = _answer(hg, question, mode, f"--method {method or modes.DEFAULT_METHOD}"
                            if mode == "search" else "asked for", method, top, limits)
        answered = time.perf_counter()
        if answer and asked.mode == "search" and not asked.text and asked.hits:
            _answer_search(hg, question, asked, limits.answer_tokens or hg.settings.answer_tokens)
    asked.used = _spend(before, hg.llm_usage, started, answered)
    if asked.retrieval is not None:
        asked.used.seconds["retrieve"] = round(asked.retrieval.ms / 1000, 4)
    # Citations are chunk ids; a reader needs `report.pdf#p3`.
    asked.sources = hg.store.chunk_citations(asked.citations) if asked.citations else {}
    return asked


def _spend(before: dict[str, StepUsage], after: dict[str, StepUsage], started: float, answered: float) -> Spend:
    now = time.perf_counter()
    return spend_of(usage_since(before, after), now - started, now - answered)


def _answer_search(hg: HopGraph, question: str, asked: Answer, tokens: int) -> None:
    """Search ends in an answer: the LLM's from the hits (at most `tokens` of them) when one is
    configured, else the hits' best sentences (query/extractive.py)."""
    hits = asked.hits
    found = (llm_answer_from_hits(hg.llm(), question, hits, tokens) if hg.has_llm
             else extractive_answer(question, hits, hg.embedder.embed))
    asked.text, asked.citations, asked.writer = found.text, found.citations, found.mode
    asked.note = with_dropped(asked.note, found.dropped)


def _answer(hg: HopGraph, question: str, mode: str, why: str, method: str | None = None,
            top: int | None = None, limits: modes.AskLimits = modes.NO_LIMITS) -> Answer:
    if mode == "search":
        return Answer(question, mode, why, hg.search(question, method or modes.DEFAULT_METHOD, top, limits.seeds))
    if mode in ("local", "paths"):  # live extraction of unread top hits, the walk, its fall-open
        return ask_walk(hg, question, mode, why, top, limits)
    if mode == "iterative":
        return _iterative(hg, question, why, top, limits)
    run = {"global": hg.global_search, "lazy": hg.lazy_global, "drift": hg.drift}[mode]
    return modes.from_corpus(question, mode, why, run(question, None))


def _iterative(hg: HopGraph, question: str, why: str, top: int | None, limits: modes.AskLimits) -> Answer:
    """IRCoT: each search runs `iterative_method`; the model reads what was found and names the next."""
    if not hg.has_llm:
        raise HopgraphError("--mode iterative needs an LLM (it picks each next search): set llm_url and llm_model")
    method, settings = hg.settings.iterative_method, hg.settings
    budget = IterativeBudget(limits.steps or settings.iterative_steps, limits.answer_tokens or settings.answer_tokens)
    result = iterative_search(question, lambda query: hg.search(query, method, top, limits.seeds), hg.llm(), budget)
    found = result.answer
    return Answer(question, "iterative", why, result.retrieval, found.text, found.citations, found.mode,
                  note=with_dropped("", found.dropped), steps=result.steps)
