"""The OpenAI-compatible chat API: GET /v1/models and POST /v1/chat/completions, so a chat front-end
(Open WebUI, any OpenAI client) can be pointed at `hopgraph serve` (base URL `…/v1`, API key: the
serve token). Wire shapes, which request fields are read and which ignored: openai_wire.py.

The last user message is the question, asked in the mode the model names (`hopgraph`: auto), as
POST /ask asks it. The reply's content is the answer's text (its `[chunk N]` markers as the mode
wrote them) and, when it cites, a `Sources:` list with one `[chunk N] source` line per citation.
The reply object's extra key `hopgraph` holds what the answer came from, as `hopgraph ask --json`
says it: `mode` (the mode that answered), `why` (the route: the router's reason in auto), `writer`,
`citations` ({chunk, source}), `hits` (rank, chunk, title, source, score, how it was found, text),
`paths` (the relation paths of `paths` mode) and `note`.

`"stream": true` sends server-sent `chat.completion.chunk` events: the role as soon as the hits
are known (serve/questions.AnswerEvents), then the content in deltas of a few words once the answer
is written (the LLM client reads a reply whole: its tokens are not streamed), a last chunk with
`finish_reason` "stop" and the `hopgraph` key, the usage chunk when
`stream_options.include_usage` asks for it, then `data: [DONE]`. A failure before the hits are
known keeps its error status; one after is an `{"error": …}` event. A client that goes away
mid-stream stops the events; the question under way is finished and dropped.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from hopgraph.plugins import load_plugins
from hopgraph.serve.errors import ApiError
from hopgraph.serve.openai_wire import ChatRequest, Reply, error_body, mode_of, model_card, model_names, usage
from hopgraph.serve.questions import AnswerEvents, ask_question, routed_question
from hopgraph.serve.routes import JsonResult, require_json
from hopgraph.serve.shared_graph import Graph
from hopgraph.serve.streaming import deltas, event, event_stream, failure

load_plugins()  # a plugin's mode is a model too
router = APIRouter(prefix="/v1", tags=["chat (OpenAI-compatible)"])
STARTED = int(time.time())  # the models' `created`: they exist since the server started


@router.get("/models", response_class=JsonResult)
def list_models() -> JsonResult:
    """One model per answer mode: `hopgraph` (auto), `hopgraph-search`, `hopgraph-global`, …"""
    return JsonResult({"object": "list", "data": [model_card(name, STARTED) for name in model_names()]})


@router.get("/models/{model}", response_class=JsonResult)
def get_model(model: str) -> JsonResult:
    _mode(model)
    return JsonResult(model_card(model, STARTED))


@router.post("/chat/completions", dependencies=[Depends(require_json)], response_model=None)
async def chat_completions(request: ChatRequest, graph: Graph) -> JsonResult | EventSourceResponse:
    """The last user message, answered in the mode the model names (see the module's docstring)."""
    mode, text = _mode(request.model), request.question()
    if not text or not text.strip():
        raise ApiError(400, "messages: no user message with text to answer", param="messages")
    question = await run_in_threadpool(graph.read, lambda hg: routed_question(hg, text, mode))
    reply = Reply(request.model)
    if not request.stream:
        answered = await run_in_threadpool(ask_question, graph, question)
        return JsonResult(reply.completion(readable(answered), usage(answered["used"]), provenance(answered)))
    events = AnswerEvents(graph, question)
    return event_stream(_chunks(events, await events.started(), reply, request.include_usage))


def _mode(model: str) -> str:
    mode = mode_of(model)
    if mode is None:
        raise ApiError(404, f"the model {model!r} does not exist; use one of {', '.join(model_names())}",
                       code="model_not_found", param="model")
    return mode


def readable(answered: dict[str, Any]) -> str:
    """The answer's text, then a `Sources:` line per citation; the note when there is no text."""
    text = answered["answer"]["text"].strip() or answered["note"] or "hopgraph found nothing to answer this from."
    cited = answered["answer"]["citations"]
    if not cited:
        return text
    titles = {hit["chunk"]: hit["title"] for hit in answered["hits"]}
    sources = [f"[chunk {c['chunk']}] {c['source'] or titles.get(c['chunk'], '')}".rstrip() for c in cited]
    return text + "\n\nSources:\n" + "\n".join(sources)


def provenance(answered: dict[str, Any]) -> dict[str, Any]:
    """The reply's `hopgraph` key: what the answer came from."""
    return {"mode": answered["mode"], "why": answered["why"], "writer": answered["answer"]["writer"],
            "citations": answered["answer"]["citations"], "hits": answered["hits"], "paths": answered["paths"],
            "note": answered["note"]}


async def _chunks(events: AnswerEvents, first: tuple[str, Any], reply: Reply,
                  include_usage: bool) -> AsyncIterator[ServerSentEvent]:
    yield event(reply.chunk({"role": "assistant", "content": ""}))
    kind, data = first
    while kind == "found":
        kind, data = await events.next()
    if kind == "error":
        yield event(error_body(*failure(data, "POST /v1/chat/completions")))
        return
    for piece in deltas(readable(data)):
        yield event(reply.chunk({"content": piece}))
    yield event(reply.chunk({}, "stop", hopgraph=provenance(data)))
    if include_usage:
        yield event(reply.usage_chunk(usage(data["used"])))
    yield event("[DONE]")
