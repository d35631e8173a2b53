"""`iterative` as a mode: IRCoT (query/iterative.py) with each search by the `iterative_method`."""

from __future__ import annotations

from hopgraph.errors import HopgraphError
from hopgraph.query.context import QueryContext
from hopgraph.query.iterative import IterativeBudget, iterative_search
from hopgraph.query.modes.corpus import ASKED_FOR
from hopgraph.query.question import Question
from hopgraph.query.writers import with_dropped
from hopgraph.records.answers import Answer


def run_iterative(ctx: QueryContext, question: Question) -> Answer:
    """The model reads what each search found and names the next. Its searches are its own
    stripped, non-empty lines of at most 300 tokens (query/iterative.py): not checked again."""
    if ctx.llm is None:
        raise HopgraphError("--mode iterative needs an LLM (it picks each next search): set llm_url and llm_model")
    settings, limits = ctx.settings, question.limits
    budget = IterativeBudget(limits.steps or settings.iterative_steps, limits.answer_tokens or settings.answer_tokens)
    method = settings.iterative_method
    result = iterative_search(question.text, lambda query: ctx.search(query, method, question.top, limits.seeds),
                              ctx.llm, budget)
    found = result.answer
    return Answer(question.text, "iterative", ASKED_FOR, result.retrieval, found.text, found.citations, found.mode,
                  note=with_dropped("", found.dropped), steps=result.steps)
