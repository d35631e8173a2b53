"""The toy plugin's answer mode `toy`: the question's best hybrid hit, said back with its title.

It uses only what a plugin sees — the context and the checked question — and registers with one call.
"""

from __future__ import annotations

from hopgraph.query.context import QueryContext
from hopgraph.query.modes import register_mode
from hopgraph.query.question import Question
from hopgraph.records.answers import Answer


def run_toy(ctx: QueryContext, question: Question) -> Answer:
    found = ctx.search(question.text, "hybrid", top=1)
    best = found.hits[0]
    return Answer(question.text, "toy", "asked for", found, f"toy mode: the best chunk is {best.title!r}",
                  [best.chunk_id], "toy")


def register() -> None:
    register_mode("toy", run_toy, "a toy plugin's mode: the best hybrid hit, said back")
