"""Asking on the shared graph as events (serve/questions.AnswerEvents): the route and hits arrive
while the answer is still being written, then the whole answer; a failure is an event too."""

from __future__ import annotations

import threading

import anyio
import pytest

import hopgraph.query.asking
from hopgraph.config import Settings
from hopgraph.errors import HopgraphError
from hopgraph.serve.questions import AnswerEvents, routed_question
from hopgraph.serve.shared_graph import SharedGraph

QUESTION = "Where is High Impact Games based?"


@pytest.fixture
def shared(fresh_store):
    graph = SharedGraph(str(fresh_store), Settings())
    yield graph
    graph.close()


def test_the_hits_arrive_while_the_answer_is_still_being_written(shared, monkeypatch):
    found_delivered = threading.Event()
    writing = hopgraph.query.asking.extractive_answer

    def slow_writer(*args, **kwargs):  # the answer is not written until the test has the hits
        assert found_delivered.wait(60), "the hits were not handed on before the answer was written"
        return writing(*args, **kwargs)

    monkeypatch.setattr(hopgraph.query.asking, "extractive_answer", slow_writer)
    question = shared.read(lambda hg: routed_question(hg, QUESTION, "search"))

    async def follow() -> list[tuple[str, dict]]:
        events = AnswerEvents(shared, question)
        first = await events.started()
        found_delivered.set()
        return [first, await events.next()]

    (found, hits), (done, answer) = anyio.run(follow)
    assert (found, done) == ("found", "done")
    assert hits["hits"] and [h["chunk"] for h in hits["hits"]] == [h["chunk"] for h in answer["hits"]]
    assert answer["answer"]["text"] and answer["answer"]["citations"]


def test_a_failure_before_anything_was_found_is_raised_by_started(shared):
    question = shared.read(lambda hg: routed_question(hg, QUESTION, "iterative"))  # needs an LLM

    async def start() -> None:
        await AnswerEvents(shared, question).started()

    with pytest.raises(HopgraphError, match="needs an LLM"):
        anyio.run(start)
