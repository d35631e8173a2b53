"""POST /ask over real HTTP: the answer `hopgraph ask --json` gives, in every mode the sample can
answer offline, and each kind of bad request refused with its status and a JSON message."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from serve_kit import cli_json, timed_stream, without_timings
from streaming_llm import json_answer

from hopgraph.records.answers import JSON_SCHEMA_VERSION

QUESTION = "Where is High Impact Games based?"


def ask(server: str, **body) -> httpx.Response:
    return httpx.post(f"{server}/ask", json=body, timeout=120)


def test_an_answer_is_the_one_the_command_line_gives(server, sample_store):
    answered = ask(server, question=QUESTION)
    assert answered.status_code == 200
    got = answered.json()
    assert got["hits"] and got["answer"]["citations"] and got["used"]["seconds"]["total"] > 0
    assert {"retrieve", "answer", "total"} <= set(got["used"]["seconds"])
    expected = cli_json("ask", QUESTION, "--store", str(sample_store))
    assert without_timings(got) == without_timings(expected)


@pytest.mark.parametrize(("body", "mode"), [
    ({"mode": "search", "method": "hybrid", "top": 3}, "search"),
    ({"mode": "local"}, "local"),
    ({"mode": "paths", "question": "Which companies are located in Burbank?"}, "paths"),
])
def test_each_mode_answers_with_the_same_schema(server, body, mode):
    answered = ask(server, **{"question": QUESTION, **body})
    assert answered.status_code == 200, answered.text
    got = answered.json()
    assert got["mode"] == mode and got["schema"] == JSON_SCHEMA_VERSION == 2 and got["answer"]["text"]
    if "top" in body:
        assert len(got["hits"]) == body["top"] and got["retrieval"]["method"] == "hybrid"
    if mode == "paths":
        assert got["paths"] and all(hop["chunk_id"] for path in got["paths"] for hop in path)


def test_limits_bound_this_question_only(server):
    def trace(body: dict, stage: str) -> str:
        answered = ask(server, question=QUESTION, answer=False, **body)
        assert answered.status_code == 200, answered.text
        return next(step["detail"] for step in answered.json()["retrieval"]["trace"] if step["stage"] == stage)

    search = {"mode": "search", "method": "hybrid+names+links"}
    assert trace(search, "links").endswith("then 3 seed(s)")  # the setting
    assert trace(search | {"limits": {"seeds": 1}}, "links").endswith("then 1 seed(s)")
    assert trace(search, "links").endswith("then 3 seed(s)")  # the next question is back to the setting
    assert "within 2 hop(s)" in trace({"mode": "local"}, "walk")
    walked = trace({"mode": "local", "limits": {"max_hops": 1, "max_nodes": 2}}, "walk")
    assert "2 entities within 1 hop(s)" in walked


def test_no_answer_gives_the_ranked_chunks_only(server):
    got = ask(server, question=QUESTION, mode="search", answer=False).json()
    assert got["hits"] and got["answer"] == {"text": "", "writer": "", "citations": []}


@pytest.mark.parametrize(("body", "named"), [
    ({}, "question"),
    ({"question": ""}, "question"),
    ({"question": QUESTION, "top": "five"}, "top"),
    ({"question": QUESTION, "top": 0}, "top"),
    ({"question": QUESTION, "top": "3"}, "top"),  # strict: a string is not a number
    ({"question": QUESTION, "top": 3.0}, "top"),
    ({"question": QUESTION, "answer": "yes"}, "answer"),  # nor a boolean
    ({"question": QUESTION, "answer": 1}, "answer"),
    ({"question": 42}, "question"),
    ({"question": QUESTION, "limits": {"seeds": -1}}, "limits.seeds"),
    ({"question": QUESTION, "limits": {"max_hops": 7}}, "limits.max_hops"),
    ({"question": QUESTION, "limits": {"max_nodes": 0}}, "limits.max_nodes"),
    ({"question": QUESTION, "limits": {"steps": 11}}, "limits.steps"),
    ({"question": QUESTION, "limits": {"answer_tokens": 10**6}}, "limits.answer_tokens"),
    ({"question": QUESTION, "limits": {"seeds": "2"}}, "limits.seeds"),
    ({"question": QUESTION, "limits": {"fan_out": 3}}, "limits.fan_out"),
    ({"question": QUESTION, "limits": 5}, "limits"),
    ({"question": QUESTION, "mode": "telepathy"}, "mode"),
    ({"question": QUESTION, "shout": True}, "shout"),
    ({"question": "why? " * 1000}, "question"),
])
def test_a_body_of_the_wrong_shape_is_422_naming_the_field(server, body, named):
    refused = ask(server, **body)
    assert refused.status_code == 422
    assert named in refused.json()["error"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_body_that_is_not_sent_as_json_is_415(server, content_type):
    headers = {"content-type": content_type} if content_type else {}
    refused = httpx.post(f"{server}/ask", content=b'{"question": "Where is Burbank?"}', headers=headers)
    assert refused.status_code == 415
    assert refused.json() == {"error": "send the body as JSON, with `Content-Type: application/json`"}


def test_json_with_a_charset_or_a_json_suffix_is_json(server):
    for content_type in ("application/json; charset=utf-8", "application/vnd.api+json"):
        answered = httpx.post(f"{server}/ask", content=b'{"question": "Where is Burbank?", "mode": "search"}',
                              headers={"content-type": content_type}, timeout=120)
        assert answered.status_code == 200, (content_type, answered.text)


def test_malformed_json_is_400(server):
    refused = httpx.post(f"{server}/ask", content=b'{"question": "Where', headers={"content-type": "application/json"})
    assert refused.status_code == 400 and refused.json() == {"error": "the body is not valid JSON"}


def test_a_method_hopgraph_does_not_know_is_400_naming_it(server):
    refused = ask(server, question=QUESTION, method="hybrid+bar")
    assert refused.status_code == 400 and "hybrid+bar" in refused.json()["error"]


@pytest.mark.parametrize("question", [QUESTION, "What are the main themes across all the documents?"])
def test_an_auto_question_is_checked_once_and_routed_once(fresh_store, monkeypatch, question):
    """In process (the counts are this process's): the route that decides whether the question may
    write is the route it is answered by."""
    from fastapi.testclient import TestClient
    from spies import count_calls

    import hopgraph.query.question
    import hopgraph.retrieval.router
    from hopgraph.config import Settings
    from hopgraph.serve.app import create_app

    checks = count_calls(monkeypatch, hopgraph.query.question.check_question)
    routes = count_calls(monkeypatch, hopgraph.retrieval.router.route)
    with TestClient(create_app(str(fresh_store), Settings())) as client:
        answered = client.post("/ask", json={"question": question})
    assert answered.status_code == 200, answered.text
    assert answered.json()["why"].startswith("router: ")
    assert (len(checks), len(routes)) == (1, 1)


def test_the_modes_are_the_registry_s_in_the_description_and_a_mode_it_lacks_is_422(server):
    from hopgraph.query.modes import mode_names

    schema = httpx.get(f"{server}/openapi.json").json()["components"]["schemas"]["AskRequest"]
    assert schema["properties"]["mode"]["enum"] == list(mode_names())
    assert all(name in schema["properties"]["mode"]["description"] for name in mode_names())
    refused = ask(server, question=QUESTION, mode="telepathy")
    assert refused.status_code == 422 and "unknown mode 'telepathy'" in refused.json()["error"]


def streamed(server: str, **body) -> list[tuple[str, Any]]:
    """POST /ask with `"stream": true`: its server-sent events, (name, data) in order."""
    return [(name, data) for name, data, _ in timed_stream(server, **body)]


@pytest.mark.parametrize("body", [{"question": QUESTION}, {"question": QUESTION, "mode": "paths"},
                                  {"question": "What are the main themes across all the documents?"}])
def test_a_streamed_answer_sends_the_route_hits_text_citations_and_cost_then_the_whole(server, body):
    events = streamed(server, **body)
    names = [name for name, _ in events]
    tokens = [data for name, data in events if name == "token"]
    assert names == ["route", "hits", *["token"] * len(tokens), "citations", "used", "done"] and tokens
    route, hits, citations, used, done = (events[0][1], events[1][1], *(data for _, data in events[-3:]))
    assert (route["question"], route["mode"], route["why"], hits["hits"]) == (
        done["question"], done["mode"], done["why"], done["hits"])
    assert "".join(tokens) == done["answer"]["text"]
    assert citations == {key: done["answer"][key] for key in ("text", "writer", "citations")} and used == done["used"]
    assert done["answer"]["citations"] and done["used"]["seconds"]["total"] > 0
    whole = ask(server, **body).json()
    assert without_timings(done) == without_timings(whole)


def test_with_an_llm_the_tokens_come_as_the_model_writes_them_and_the_citations_are_checked(llm_server, model):
    model.reset(pieces=json_answer("Burbank, California", also_cite=(99999,), size=2), gap=0.1)
    events = timed_stream(llm_server, question="Which city is High Impact Games based in?", mode="search")
    names = [name for name, _, _ in events]
    tokens = [(data, at) for name, data, at in events if name == "token"]
    assert names == ["route", "hits", *["token"] * len(tokens), "citations", "used", "done"] and len(tokens) >= 5
    done = events[-1][1]
    assert "".join(data for data, _ in tokens) == done["answer"]["text"] == "Burbank, California"
    assert tokens[-1][1] - tokens[0][1] >= 0.5  # one by one as the model wrote them, not all at the end
    assert [c["chunk"] for c in events[-3][1]["citations"]] == [done["hits"][0]["chunk"]]  # 99999 dropped
    assert events[-2][1]["llm_calls"] == 1 and done["answer"]["writer"] == "llm:streamer"
    assert model.bodies[-1]["stream"] is True and model.completed.is_set()


def test_a_client_that_leaves_mid_answer_stops_the_model(llm_server, model):
    model.reset(pieces=json_answer("word " * 300, size=2), gap=0.02)  # 30 s of writing
    # a question of its own: the served store's reply cache would answer one asked before at once
    events = timed_stream(llm_server, stop_after="token", question="In which state is High Impact Games?",
                          mode="search")
    assert [name for name, _, _ in events] == ["route", "hits", "token"]
    assert model.disconnected.wait(10), "the model kept writing for a client that had gone"
    assert not model.completed.is_set()
    assert httpx.get(f"{llm_server}/health").status_code == 200


def test_a_streamed_question_that_cannot_be_answered_is_refused_with_its_status(server):
    refused = httpx.post(f"{server}/ask", json={"question": QUESTION, "mode": "iterative", "stream": True},
                         timeout=120)
    assert refused.status_code == 400 and "needs an LLM" in refused.json()["error"]
    assert ask(server, question=QUESTION, stream="yes").status_code == 422  # strict, as every field


def test_a_client_that_leaves_a_streamed_answer_does_not_hurt_the_server(server):
    for question in (QUESTION, "What are the main themes across all the documents?"):
        with httpx.stream("POST", f"{server}/ask", json={"question": question, "stream": True},
                          timeout=120) as answered:
            next(answered.iter_lines())  # the first line of `route`, then the connection goes away
    assert httpx.get(f"{server}/health").status_code == 200
    assert ask(server, question=QUESTION).status_code == 200
    assert [name for name, _ in streamed(server, question=QUESTION)][-1] == "done"
