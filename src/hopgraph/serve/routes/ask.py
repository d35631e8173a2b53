"""POST /ask: a question in any mode, answered as `hopgraph ask --json` answers it (`Answer.to_json`:
the hits with their ranks and how each was found, the relation paths, the citations, the time of
each stage), with optional `limits` for this question only (query/question.AskLimits). The question is
checked once and, in `auto` mode, routed once: the route that decides whether it may write is the
route it is answered by (serve/questions.py). With `"stream": true` the answer comes as server-sent
events (the `stream` field's description; serve/questions.AnswerEvents): the hits while the answer is
written, then the answer. Bad input is refused with its status before a stream opens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from hopgraph.engine import HopGraph
from hopgraph.plugins import load_plugins
from hopgraph.query.modes import describe_modes, mode_names
from hopgraph.query.question import MAX_QUESTION_CHARS, AskLimits, Question
from hopgraph.retrieval.methods import method_help
from hopgraph.serve.questions import AnswerEvents, ask_question, routed_question
from hopgraph.serve.routes import JsonResult, require_json
from hopgraph.serve.shared_graph import Graph
from hopgraph.serve.streaming import deltas, event, event_stream, failure

load_plugins()  # a plugin's mode is in the description and accepted, as in `hopgraph ask --help`

router = APIRouter(tags=["questions"])


class QuestionLimits(BaseModel):
    """What `HopGraph.ask` bounds per question (AskLimits); unset: the server's settings. A mode
    that a limit does not concern ignores it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seeds: int | None = Field(default=None, ge=0, le=100, description="search and auto: the top hits whose "
                              "links (and the PPR walk) are followed (setting `seeds`, 3; 0: no links).")
    max_hops: int | None = Field(default=None, ge=1, le=6, description="local: hops of the walk from the "
                                 "question's entities (2).")
    max_nodes: int | None = Field(default=None, ge=1, le=1000, description="local: entities the walk visits (50).")
    steps: int | None = Field(default=None, ge=1, le=10, description="iterative: retrievals at most "
                              "(setting `iterative_steps`, 3).")
    answer_tokens: int | None = Field(default=None, ge=100, le=32000, description="with an LLM, search and "
                                      "iterative: hit text the model reads (setting `answer_tokens`, 3000).")


class AskRequest(BaseModel):
    """What `hopgraph ask` takes: the question, its mode, a retrieval method, the places in the answer;
    and limits of this question's work."""

    # strict: a JSON value of the wrong type ("3" for a number, "yes" for a boolean) is a 422
    # naming the field, never coerced into something the client did not send.
    model_config = ConfigDict(extra="forbid", strict=True)

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    mode: str = Field(default="auto", description="The answer mode: " + describe_modes("; ") + ".",
                      json_schema_extra=lambda schema: schema.update(enum=list(mode_names())))
    method: str | None = Field(default=None, max_length=100,
                               description=f"For mode search: {method_help()}.")
    top: int | None = Field(default=None, ge=1, le=1000, description="Places in the answer.")
    answer: bool = Field(default=True, description="False: the ranked chunks only (`ask --no-answer`).")
    stream: bool = Field(default=False, description="Server-sent events: `found` (mode, why, hits) as soon as "
                         "the hits are known, `text` ({delta}) pieces of the answer, `done` (the whole answer, "
                         "as without `stream`), or `error` ({error, status}).")
    limits: QuestionLimits | None = None

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, mode: str) -> str:
        if mode not in mode_names():
            raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(mode_names())}")
        return mode


@router.post("/ask", response_class=JsonResult, dependencies=[Depends(require_json)], response_model=None)
async def ask(request: AskRequest, graph: Graph) -> JsonResult | EventSourceResponse:
    question = await run_in_threadpool(graph.read, lambda hg: _question(hg, request))
    if not request.stream:
        return JsonResult(await run_in_threadpool(ask_question, graph, question))
    events = AnswerEvents(graph, question)
    return event_stream(_events(events, await events.started()))


def _question(hg: HopGraph, request: AskRequest) -> Question:
    limits = AskLimits(**request.limits.model_dump()) if request.limits else None
    return routed_question(hg, request.question, request.mode, request.method, request.top, request.answer, limits)


async def _events(events: AnswerEvents, first: tuple[str, Any]) -> AsyncIterator[ServerSentEvent]:
    """`found` (mode, why, hits), `text` deltas of the answer, `done` (the whole answer: its checked
    citations, `used`); or an `error` event."""
    kind, data = first
    while kind == "found":
        yield event(data, "found")
        kind, data = await events.next()
    if kind == "error":
        status, message = failure(data, "POST /ask")
        yield event({"error": message, "status": status}, "error")
        return
    for piece in deltas(data["answer"]["text"]):
        yield event({"delta": piece}, "text")
    yield event(data, "done")
