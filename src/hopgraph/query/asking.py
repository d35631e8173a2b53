"""Asking one question: check it once (`make_question`), run its mode from the registry
(query/modes/), end search in an answer, and account for what the question cost. The facade builds
the context (query/context.py) and calls `ask`; nothing here reaches back up to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext

from hopgraph.llm import StepUsage, usage_since
from hopgraph.query import modes
from hopgraph.query.context import QueryContext
from hopgraph.query.extractive import extractive_answer
from hopgraph.query.question import DEFAULT_METHOD, NO_LIMITS, AskLimits, Question, check_question
from hopgraph.query.short import short_answer_of
from hopgraph.query.writers import OnToken, llm_answer_from_hits, spend_of, with_dropped
from hopgraph.records.answers import Answer, Spend
from hopgraph.retrieval.methods import parse_method
from hopgraph.retrieval.router import AUTO

__all__ = ["Found", "OnToken", "ask", "make_question"]

Found = Callable[[Answer], None]  # told the answer so far: the mode has run, search's answer is not written yet


def make_question(text: str, mode: str = "auto", method: str | None = None, top: int | None = None,
                  answer: bool = True, limits: AskLimits | None = None) -> Question:
    """The one check of a question: its text, its mode, and its method parsed once. A `method`
    turns `auto` into search (a method asks for plain search with it); InputError on bad input."""
    text, mode = check_question(text), modes.get_mode(mode).name
    if method is not None and mode == "auto":
        mode = "search"
    searched = (method or DEFAULT_METHOD) if mode == "search" else method
    spec = parse_method(searched) if searched is not None and searched.strip().lower() != AUTO else None
    return Question(text, mode, method, spec, top, answer, limits or NO_LIMITS)


def ask(ctx: QueryContext, question: Question, found: Found | None = None,
        on_token: OnToken | None = None) -> Answer:
    """What `HopGraph.ask` returns (see there): the question's mode run once under the LLM deadline.
    `found` sees the answer as the mode left it — its route and hits — before search's answer is
    written (a streamed answer sends them while an LLM writes); `on_token` is told search's answer
    piece by piece as the LLM writes it (the reply streams)."""
    started, before = time.perf_counter(), ctx.usage()
    client = ctx.llm
    with client.deadline(ctx.settings.llm_deadline or None) if client else nullcontext():
        asked = modes.get_mode(question.mode).run(ctx, question)
        answered = time.perf_counter()
        if found is not None:
            found(asked)
        short_seconds = None
        if question.answer and asked.mode == "search" and not asked.text and asked.hits:
            short_seconds = _answer_search(ctx, question, asked, on_token)
    asked.used = _spend(before, ctx.usage(), started, answered)
    if short_seconds is not None:
        asked.used.seconds["short_answer"] = round(short_seconds, 4)
    if asked.retrieval is not None:
        asked.used.seconds["retrieve"] = round(asked.retrieval.ms / 1000, 4)
    # Citations are chunk ids; a reader needs `report.pdf#p3`.
    cited = [*asked.citations, *([asked.short.chunk_id] if asked.short and asked.short.chunk_id is not None else [])]
    asked.sources = ctx.citations(cited) if cited else {}
    return asked


def _spend(before: dict[str, StepUsage], after: dict[str, StepUsage], started: float, answered: float) -> Spend:
    now = time.perf_counter()
    return spend_of(usage_since(before, after), now - started, now - answered)


def _answer_search(ctx: QueryContext, question: Question, asked: Answer,
                   on_token: OnToken | None) -> float | None:
    """Search ends in an answer: the LLM's from the hits (at most `answer_tokens` of them) when one
    is configured, else a short answer copied from the hits (query/short/), when one is good
    enough, above the hits' best sentences (query/extractive.py). The seconds the short answer took,
    if it was looked for."""
    hits, tokens = asked.hits, question.limits.answer_tokens or ctx.settings.answer_tokens
    seconds = None
    if ctx.llm:
        found = llm_answer_from_hits(ctx.llm, question.text, hits, tokens, on_token)
    else:
        started = time.perf_counter()
        asked.short = short_answer_of(question.text, hits)
        seconds = time.perf_counter() - started
        found = extractive_answer(question.text, hits, ctx.embed)
    asked.text, asked.citations, asked.writer = found.text, found.citations, found.mode
    asked.note = with_dropped(asked.note, found.dropped)
    return seconds
