"""A question asked on the shared graph (shared_graph.py), for POST /ask and the chat API: whole
(`ask_question`) or as it goes (`AnswerEvents`).

The question is checked and, in `auto` mode, routed once (`routed_question`); the route that decides
whether it may write is the route it is answered by: a question that may write (global, lazy,
DRIFT, or `auto` routed global) runs on the writer when it is free, any other on the reader.

`AnswerEvents` asks in a worker thread and hands its progress to the event loop: `found` (the mode
and its route, `why`, and the hits, as soon as the mode has them — for search, before the answer
is written, which with an LLM is most of the wait), then `done` (the whole `Answer.to_json()`), or
`error`. A stream whose client goes away stops reading; the thread finishes the question (an LLM
call under way is not interrupted) and its result is dropped.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

import anyio.to_thread

from hopgraph.engine import HopGraph
from hopgraph.query.asking import Found
from hopgraph.query.modes import get_mode
from hopgraph.query.modes.search import routed_mode
from hopgraph.query.question import AskLimits, Question
from hopgraph.records.answers import Answer
from hopgraph.serve.shared_graph import SharedGraph


def routed_question(hg: HopGraph, text: str, mode: str, method: str | None = None, top: int | None = None,
                    answer: bool = True, limits: AskLimits | None = None) -> Question:
    """The question checked once; an `auto` one routed once."""
    question = hg.question(text, mode, method, top, answer, limits)
    return hg.routed(question) if question.mode == "auto" else question


def ask_question(graph: SharedGraph, question: Question, found: Found | None = None) -> dict[str, Any]:
    """A checked question asked on the reader, or on the writer when it may write; its
    `Answer.to_json()`, made where the answer was (a hit's text is read from the store lazily)."""

    def run(hg: HopGraph) -> dict[str, Any]:
        return hg.ask(question, found=found).to_json()

    return graph.write_if_free(run) if may_write(question) else graph.read(run)


def may_write(question: Question) -> bool:
    """Global, lazy and DRIFT search store the community tree and reports they make on first use;
    `auto` goes there when the router calls the question global."""
    if question.route is not None:
        return routed_mode(question.route) == "global"
    return get_mode(question.mode).writes


def found_json(partial: Answer) -> dict[str, Any]:
    """The `found` event: the mode, its route and the hits (made in the worker, where hit texts are read)."""
    whole = partial.to_json()
    return {"question": whole["question"], "mode": whole["mode"], "why": whole["why"], "hits": whole["hits"]}


class AnswerEvents:
    """One question asked in a worker thread; `next()` awaits its next event, `(kind, data)`:
    ("found", found_json), ("done", Answer.to_json()) or ("error", the exception)."""

    def __init__(self, graph: SharedGraph, question: Question) -> None:
        self._events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._ask, args=(graph, question), name="hopgraph-answer",
                                        daemon=True)
        self._worker.start()

    def _ask(self, graph: SharedGraph, question: Question) -> None:
        try:
            answered = ask_question(graph, question, lambda partial: self._events.put(("found", found_json(partial))))
        except Exception as error:  # handed to the event loop, which answers or reports it
            self._events.put(("error", error))
        else:
            self._events.put(("done", answered))

    async def started(self) -> tuple[str, Any]:
        """The first event; a question that failed before it found anything raises its error here,
        before a stream is opened, so the error handlers answer with its status."""
        kind, data = await self.next()
        if kind == "error":
            raise data
        return kind, data

    async def next(self) -> tuple[str, Any]:
        # abandon_on_cancel: a stream cancelled (its client gone) does not wait for the question
        return await anyio.to_thread.run_sync(self._events.get, abandon_on_cancel=True)
