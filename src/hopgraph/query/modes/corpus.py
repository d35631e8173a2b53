"""The modes over the whole collection — global, lazy and DRIFT search — as `Answer`s. Their work
(the community tree and reports, stored on first use) is the facade's: the context runs it."""

from __future__ import annotations

from hopgraph.query.context import CorpusResult, QueryContext
from hopgraph.query.question import Question
from hopgraph.records.answers import Answer

ASKED_FOR = "asked for"  # why a mode the asker named was run


def from_corpus(question: str, mode: str, why: str, result: CorpusResult) -> Answer:
    """A global, lazy or DRIFT result as the `Answer` every mode returns."""
    return Answer(question, mode, why, result.retrieval, result.answer, list(result.citations), result.mode,
                  details=dict(result.used), note="; ".join(result.errors))


def run_global(ctx: QueryContext, question: Question, why: str = ASKED_FOR) -> Answer:
    return from_corpus(question.text, "global", why, ctx.corpus("global", question.text))


def run_lazy(ctx: QueryContext, question: Question) -> Answer:
    return from_corpus(question.text, "lazy", ASKED_FOR, ctx.corpus("lazy", question.text))


def run_drift(ctx: QueryContext, question: Question) -> Answer:
    return from_corpus(question.text, "drift", ASKED_FOR, ctx.corpus("drift", question.text))
