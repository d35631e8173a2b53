"""The OpenAI-compatible chat API over real HTTP, spoken to by the real `openai` client: the models
are the answer modes, a completion answers the last user message as POST /ask does (streamed or
not), errors come in OpenAI's shape, the serve token is the API key, and a client that leaves
mid-stream does not hurt the server."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import openai
import pytest
from serve_kit import running_server

from hopgraph.query.modes import mode_names
from hopgraph.serve.routes.chat import readable

TOKEN = "chat-token-for-tests"
QUESTION = "Where is High Impact Games based?"
ASKED = [{"role": "system", "content": "Answer briefly."},
         {"role": "user", "content": "Which companies are located in Burbank?"},
         {"role": "assistant", "content": "High Impact Games."},
         {"role": "user", "content": QUESTION}]


@pytest.fixture(scope="module")
def base(sample_store) -> Iterator[str]:
    with running_server(sample_store, token=TOKEN) as url:
        yield url


@pytest.fixture(scope="module")
def client(base: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{base}/v1", api_key=TOKEN, max_retries=0, timeout=120)


@pytest.fixture(scope="module")
def asked(base: str) -> dict:
    """POST /ask's answer to QUESTION: what a completion must say."""
    answered = httpx.post(f"{base}/ask", json={"question": QUESTION}, headers={"Authorization": f"Bearer {TOKEN}"},
                          timeout=120)
    assert answered.status_code == 200, answered.text
    return answered.json()


def raw_chat(base: str, body: dict, token: str = TOKEN) -> httpx.Response:
    return httpx.post(f"{base}/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {token}"},
                      timeout=120)


def test_the_models_are_the_answer_modes(client):
    expected = ["hopgraph", *(f"hopgraph-{mode}" for mode in mode_names() if mode != "auto")]
    listed = client.models.list()
    assert [model.id for model in listed.data] == expected
    assert {"hopgraph-search", "hopgraph-global", "hopgraph-local"} <= set(expected)
    assert all(model.owned_by == "hopgraph" and model.created > 0 for model in listed.data)
    assert client.models.retrieve("hopgraph-global").id == "hopgraph-global"


def test_a_completion_answers_the_last_user_message_as_ask_does(client, asked):
    completion = client.chat.completions.create(model="hopgraph", messages=ASKED, temperature=0.2, top_p=0.9,
                                                max_tokens=16, seed=7, user="someone")  # accepted, ignored
    assert completion.object == "chat.completion" and completion.model == "hopgraph"
    assert completion.id.startswith("chatcmpl-") and len(completion.choices) == 1
    choice = completion.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    content = choice.message.content
    assert content.startswith(asked["answer"]["text"]) and "Burbank, California" in content
    cited = asked["answer"]["citations"]
    assert cited and content.endswith("\n\nSources:\n" + "\n".join(f"[chunk {c['chunk']}] {c['source']}"
                                                                    for c in cited))
    extra = completion.model_extra["hopgraph"]
    assert (extra["mode"], extra["why"], extra["writer"]) == (asked["mode"], asked["why"], "extractive")
    assert extra["why"].startswith("router: ") and extra["citations"] == cited
    assert [hit["chunk"] for hit in extra["hits"]] == [hit["chunk"] for hit in asked["hits"]]
    assert all(hit["text"] and hit["how"] for hit in extra["hits"])
    spent = asked["used"]["tokens_in"], asked["used"]["tokens_out"]  # no LLM: nothing spent
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == spent == (0, 0)


@pytest.mark.parametrize(("model", "question", "mode"), [
    ("hopgraph-search", QUESTION, "search"),
    ("hopgraph-paths", "Which companies are located in Burbank?", "paths"),
    ("hopgraph-local", QUESTION, "local"),
])
def test_the_model_selects_the_mode(client, model, question, mode):
    completion = client.chat.completions.create(model=model, messages=[{"role": "user", "content": question}])
    extra = completion.model_extra["hopgraph"]
    assert completion.model == model and extra["mode"] == mode and not extra["why"].startswith("router")
    assert completion.choices[0].message.content.strip()
    assert bool(extra["paths"]) == (mode == "paths")  # the relation paths it answered from


def test_a_message_in_parts_is_read_for_its_text(client):
    parts = [{"type": "text", "text": "Where is High Impact"}, {"type": "text", "text": "Games based?"}]
    completion = client.chat.completions.create(model="hopgraph-search",
                                                messages=[{"role": "user", "content": parts}])
    assert "Burbank, California" in completion.choices[0].message.content


def test_a_streamed_completion_says_the_same_in_chunks(client, asked):
    whole = client.chat.completions.create(model="hopgraph", messages=ASKED).choices[0].message.content
    chunks = list(client.chat.completions.create(model="hopgraph", messages=ASKED, stream=True,
                                                 stream_options={"include_usage": True}))
    assert all(chunk.object == "chat.completion.chunk" and chunk.model == "hopgraph" for chunk in chunks)
    assert len({chunk.id for chunk in chunks}) == 1
    first, *middle, finish, spent = chunks
    assert first.choices[0].delta.role == "assistant" and not first.choices[0].delta.content
    assert len(middle) > 1 and all(chunk.choices[0].finish_reason is None for chunk in middle)
    assert "".join(chunk.choices[0].delta.content for chunk in middle) == whole
    assert finish.choices[0].finish_reason == "stop" and not finish.choices[0].delta.content
    assert [hit["chunk"] for hit in finish.model_extra["hopgraph"]["hits"]] == [h["chunk"] for h in asked["hits"]]
    assert spent.choices == [] and spent.usage.total_tokens == 0


def test_the_stream_is_server_sent_events_ending_in_done(base):
    body = {"model": "hopgraph-search", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}
    with httpx.stream("POST", f"{base}/v1/chat/completions", json=body, timeout=120,
                      headers={"Authorization": f"Bearer {TOKEN}"}) as streamed:
        assert streamed.status_code == 200
        assert streamed.headers["content-type"].startswith("text/event-stream")
        text = streamed.read().decode()
    events = [event for event in text.split("\n\n") if event]
    assert all(event.startswith("data: ") for event in events) and events[-1] == "data: [DONE]"
    assert '"usage"' not in text  # only when stream_options.include_usage asks for it


def test_an_unknown_model_is_a_404_in_openai_s_shape(client, base):
    with pytest.raises(openai.NotFoundError) as refused:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": QUESTION}])
    assert refused.value.code == "model_not_found" and "'gpt-4o' does not exist" in refused.value.message
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("gpt-4o")
    raw = raw_chat(base, {"model": "gpt-4o", "messages": [{"role": "user", "content": QUESTION}]})
    assert raw.status_code == 404 and raw.json()["error"] == {
        "message": "the model 'gpt-4o' does not exist; use one of " + ", ".join(
            ["hopgraph", *(f"hopgraph-{m}" for m in mode_names() if m != "auto")]),
        "type": "not_found_error", "param": "model", "code": "model_not_found"}


@pytest.mark.parametrize("token", ["wrong", f"{TOKEN}x"])
def test_a_wrong_token_is_refused_with_401(base, token):
    stranger = openai.OpenAI(base_url=f"{base}/v1", api_key=token, max_retries=0, timeout=30)
    with pytest.raises(openai.AuthenticationError) as refused:
        stranger.chat.completions.create(model="hopgraph", messages=[{"role": "user", "content": QUESTION}])
    assert refused.value.status_code == 401 and refused.value.message.endswith("wrong token")
    with pytest.raises(openai.AuthenticationError):
        stranger.models.list()
    missing = httpx.get(f"{base}/v1/models")
    assert missing.status_code == 401 and missing.json()["error"]["type"] == "authentication_error"


@pytest.mark.parametrize(("body", "status", "named"), [
    ({"model": "hopgraph", "messages": []}, 422, "messages"),
    ({"model": "hopgraph"}, 422, "messages"),
    ({"messages": [{"role": "user", "content": QUESTION}]}, 422, "model"),
    ({"model": "hopgraph", "messages": [{"role": "system", "content": "Be brief."}]}, 400, "no user message"),
    ({"model": "hopgraph", "messages": [{"role": "user", "content": "   "}]}, 400, "no user message"),
    ({"model": "hopgraph", "messages": [{"role": "wizard", "content": QUESTION}]}, 422, "role"),
    ({"model": "hopgraph", "messages": [{"role": "user", "content": 42}]}, 422, "content"),
    ({"model": "hopgraph", "stream": "yes", "messages": [{"role": "user", "content": QUESTION}]}, 422, "stream"),
    ({"model": "hopgraph", "n": 2, "messages": [{"role": "user", "content": QUESTION}]}, 422, "n"),
    ({"model": "hopgraph", "messages": [{"role": "user", "content": "why? " * 1000}]}, 400, "2,000"),
    ({"model": "hopgraph-iterative", "messages": [{"role": "user", "content": QUESTION}]}, 400, "needs an LLM"),
])
def test_a_bad_request_is_refused_in_openai_s_shape_naming_the_problem(base, body, status, named):
    refused = raw_chat(base, body)
    assert refused.status_code == status, refused.text
    error = refused.json()["error"]
    assert named in error["message"] and error["type"] == "invalid_request_error"
    assert set(error) == {"message", "type", "param", "code"}


def test_a_bad_streamed_request_is_refused_before_the_stream_starts(client):
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="hopgraph-iterative", stream=True,
                                       messages=[{"role": "user", "content": QUESTION}])
    assert "needs an LLM" in refused.value.message


def test_a_client_that_leaves_mid_stream_does_not_hurt_the_server(client, base, sample_store):
    themes = [{"role": "user", "content": "What are the main themes across all the documents?"}]
    for messages, read in ((ASKED, 1), (ASKED, 3), (themes, 1)):  # themes: a question that may write
        stream = client.chat.completions.create(model="hopgraph", messages=messages, stream=True)
        for _, _chunk in zip(range(read), stream, strict=False):
            pass
        stream.close()  # the connection goes away with the rest unread
    assert httpx.get(f"{base}/health").status_code == 200
    after = client.chat.completions.create(model="hopgraph", messages=themes)
    assert after.choices[0].message.content and after.model_extra["hopgraph"]["mode"] == "global"
    log = sample_store.parent / f"serve-{urlsplit(base).port}.log"
    assert "Traceback" not in log.read_text() and "ERROR" not in log.read_text()


def test_readable_lists_each_citation_and_falls_back_to_the_note():
    answered = {"answer": {"text": "It is in Burbank. [chunk 4]", "citations": [{"chunk": 4, "source": ""}]},
                "hits": [{"chunk": 4, "title": "High Impact Games"}], "note": ""}
    assert readable(answered) == "It is in Burbank. [chunk 4]\n\nSources:\n[chunk 4] High Impact Games"
    empty = {"answer": {"text": "", "citations": []}, "hits": [], "note": "no hits above the threshold"}
    assert readable(empty) == "no hits above the threshold"


def test_a_plugin_s_mode_is_a_model(fresh_store, monkeypatch):
    """In process, with the toy plugin's mode registered for this test only (monkeypatched registry)."""
    from fastapi.testclient import TestClient
    from testkit import REPO

    import hopgraph.query.modes as modes
    from hopgraph.config import Settings
    from hopgraph.serve.app import create_app

    monkeypatch.syspath_prepend(str(REPO / "tests" / "support" / "toy_plugin_site"))
    from toy_plugin.mode import run_toy

    monkeypatch.setitem(modes._MODES, "toy", modes.Mode("toy", run_toy, "a toy plugin's mode"))
    with TestClient(create_app(str(fresh_store), Settings())) as http:
        listed = http.get("/v1/models").json()["data"]
        answered = http.post("/v1/chat/completions", json={"model": "hopgraph-toy",
                                                           "messages": [{"role": "user", "content": QUESTION}]})
    assert [model["id"] for model in listed][-1] == "hopgraph-toy"
    assert answered.status_code == 200, answered.text
    reply = answered.json()
    assert reply["hopgraph"]["mode"] == "toy"
    assert reply["choices"][0]["message"]["content"].startswith("toy mode: the best chunk is 'High Impact Games'")
