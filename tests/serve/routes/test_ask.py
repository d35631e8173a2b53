"""POST /ask over real HTTP: the answer `hopgraph ask --json` gives, in every mode the sample can
answer offline, and each kind of bad request refused with its status and a JSON message."""

from __future__ import annotations

import json

import httpx
import pytest
from serve_kit import cli_json, without_timings

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


def streamed(server: str, **body) -> list[tuple[str, dict]]:
    """POST /ask with `"stream": true`: its server-sent events, (name, data) in order."""
    with httpx.stream("POST", f"{server}/ask", json={**body, "stream": True}, timeout=120) as answered:
        assert answered.status_code == 200 and answered.headers["content-type"].startswith("text/event-stream")
        text = answered.read().decode()
    events = []
    for block in filter(None, text.split("\n\n")):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if not line.startswith(":"))  # SSE: \n only
        events.append((fields.get("event", "message"), json.loads(fields["data"])))
    return events


@pytest.mark.parametrize("body", [{"question": QUESTION}, {"question": QUESTION, "mode": "paths"},
                                  {"question": "What are the main themes across all the documents?"}])
def test_a_streamed_answer_sends_the_hits_then_the_text_then_the_whole_answer(server, body):
    events = streamed(server, **body)
    names = [name for name, _ in events]
    assert names[0] == "found" and names[-1] == "done" and set(names[1:-1]) == {"text"}
    found, done = events[0][1], events[-1][1]
    assert (found["mode"], found["why"], found["hits"]) == (done["mode"], done["why"], done["hits"])
    assert "".join(data["delta"] for name, data in events if name == "text") == done["answer"]["text"]
    assert done["answer"]["citations"] and done["used"]["seconds"]["total"] > 0
    whole = ask(server, **body).json()
    assert without_timings(done) == without_timings(whole)


def test_a_streamed_question_that_cannot_be_answered_is_refused_with_its_status(server):
    refused = httpx.post(f"{server}/ask", json={"question": QUESTION, "mode": "iterative", "stream": True},
                         timeout=120)
    assert refused.status_code == 400 and "needs an LLM" in refused.json()["error"]
    assert ask(server, question=QUESTION, stream="yes").status_code == 422  # strict, as every field


def test_a_client_that_leaves_a_streamed_answer_does_not_hurt_the_server(server):
    for question in (QUESTION, "What are the main themes across all the documents?"):
        with httpx.stream("POST", f"{server}/ask", json={"question": question, "stream": True},
                          timeout=120) as answered:
            next(answered.iter_lines())  # the first line of `found`, then the connection goes away
    assert httpx.get(f"{server}/health").status_code == 200
    assert ask(server, question=QUESTION).status_code == 200
    assert [name for name, _ in streamed(server, question=QUESTION)][-1] == "done"
