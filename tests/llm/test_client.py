"""LLMClient against a real HTTP server on 127.0.0.1 that plays scripted chat-completions replies."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pydantic
import pytest
from fake_llm import GOOD, MESSAGES, Fact, FakeLLM, Reply, chat, dead_url, good, silent_url

from hopgraph.errors import HopgraphError
from hopgraph.llm import LLMClient, LLMError, LLMRequest, ReplayLLMCache, strip_fences
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.text.tokens import count_tokens

# --- replies that validate -------------------------------------------------------------------------


def test_valid_reply_sends_the_schema_request(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.append(good())
    client = make_client(api_key="sk-test")
    result = client.complete_json(MESSAGES, Fact, max_tokens=300, step="extract")
    assert result.value == Fact(**GOOD)
    assert (result.tokens_in, result.tokens_out, result.cached) == (50, 10, False)
    [request] = fake.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "qwen-test" and body["messages"] == MESSAGES
    assert body["max_tokens"] == 300 and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "Fact", "schema": Fact.model_json_schema(), "strict": True}}
    usage = client.usage["extract"]
    assert (usage.calls, usage.cached, usage.requests, usage.tokens_in, usage.tokens_out) == (1, 0, 1, 50, 10)


def test_no_authorization_header_without_key(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.append(good())
    make_client().complete_json(MESSAGES, Fact)
    assert "Authorization" not in fake.requests[0]["headers"]


def test_fenced_json_is_unwrapped(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.append(chat(f"```json\n{json.dumps(GOOD)}\n```"))
    assert make_client().complete_json(MESSAGES, Fact).value.target == "Globex"
    assert strip_fences("```\n{}\n```") == "{}" and strip_fences(' {"a": 1} ') == '{"a": 1}'


def test_missing_usage_is_estimated_from_text(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    content = json.dumps(GOOD)
    fake.script.append(chat(content))
    result = make_client().complete_json(MESSAGES, Fact)
    assert result.tokens_in == sum(count_tokens(m["content"]) for m in MESSAGES) > 0  # the one token count
    assert result.tokens_out == count_tokens(content) > 0


def test_complete_text_has_no_response_format(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.extend([Reply(503, "busy"), chat("Globex.", {"prompt_tokens": 7, "completion_tokens": 2})])
    client = make_client()
    result = client.complete_text(MESSAGES, max_tokens=64, step="answer")
    assert (result.value, result.tokens_in, result.tokens_out) == ("Globex.", 7, 2)
    assert "response_format" not in fake.bodies[0] and fake.bodies[0]["max_tokens"] == 64
    assert client.usage["answer"].requests == 2


# --- retries ---------------------------------------------------------------------------------------


def test_malformed_json_then_valid_is_retried(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.extend([chat('{"subject": "Acme", "relat', {"prompt_tokens": 50, "completion_tokens": 5}), good()])
    client = make_client()
    result = client.complete_json(MESSAGES, Fact, step="extract")
    assert result.value == Fact(**GOOD) and len(fake.requests) == 2
    usage = client.usage["extract"]
    # one successful call, two requests, and the rejected reply's tokens are billed too
    assert (usage.calls, usage.requests, usage.tokens_in, usage.tokens_out) == (1, 2, 100, 15)


def test_malformed_body_is_retried(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.extend([Reply(200, "<html>proxy error</html>"), Reply(200, {"choices": []}), good()])
    assert make_client().complete_json(MESSAGES, Fact).value == Fact(**GOOD)
    assert len(fake.requests) == 3


def test_invalid_schema_every_time_fails_after_all_attempts(fake: FakeLLM,
                                                            make_client: Callable[..., LLMClient]) -> None:
    fake.responder = lambda request: chat(json.dumps({"subject": "Acme", "relation": "SUPPLIES"}))
    client = make_client(max_retries=2)
    with pytest.raises(LLMError) as caught:
        client.complete_json(MESSAGES, Fact)
    assert len(fake.requests) == 3
    message = str(caught.value)
    assert "qwen-test" in message and "/v1/chat/completions" in message and "target" in message
    assert isinstance(caught.value, HopgraphError)
    assert not isinstance(caught.value.__cause__, pydantic.ValidationError)


def cut_off(content: str) -> Reply:
    reply = chat(content, {"prompt_tokens": 40, "completion_tokens": 64})
    reply.body["choices"][0]["finish_reason"] = "length"
    return reply


def test_a_reply_cut_off_at_max_tokens_is_not_retried_at_temperature_0(
        fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.responder = lambda request: cut_off('{"subject": "Acme", "relation": "SUPPLIES", "target": "Glo')
    client = make_client(max_retries=3)
    with pytest.raises(LLMError, match="cut off at max_tokens=64"):
        client.complete_json(MESSAGES, Fact, max_tokens=64)
    assert len(fake.requests) == 1  # the same request would be cut at the same place
    fake.reset()
    fake.script.extend([cut_off('{"subject": "Ac'), good()])
    assert client.complete_json(MESSAGES, Fact, temperature=0.7).value.target == "Globex"  # sampling: retry
    assert len(fake.requests) == 2


def test_429_honours_retry_after(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.extend([Reply(429, {"error": "slow down"}, {"Retry-After": "0"}), good()])
    client = make_client(backoff=5.0)  # the exponential backoff would take 5-10 s: Retry-After wins
    started = time.perf_counter()
    assert client.complete_json(MESSAGES, Fact).value == Fact(**GOOD)
    assert time.perf_counter() - started < 2.0 and len(fake.requests) == 2


def test_429_waits_as_long_as_retry_after_says(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.extend([Reply(429, {"error": "slow down"}, {"Retry-After": "0.3"}), good()])
    started = time.perf_counter()
    assert make_client().complete_json(MESSAGES, Fact).value == Fact(**GOOD)
    assert time.perf_counter() - started >= 0.3


def test_500_then_success_after_backoff(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.extend([Reply(500, {"error": "boom"}), Reply(502, "bad gateway"), good()])
    started = time.perf_counter()
    assert make_client(backoff=0.05).complete_json(MESSAGES, Fact).value == Fact(**GOOD)
    assert len(fake.requests) == 3
    assert time.perf_counter() - started >= 0.05 + 0.1  # backoff · 2^attempt (+ jitter)


def test_timeout_is_retried_then_fails(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.responder = lambda request: Reply(body={"choices": []}, delay=0.6)
    client = make_client(timeout=0.2, max_retries=1)
    with pytest.raises(LLMError, match="timed out") as caught:
        client.complete_json(MESSAGES, Fact)
    assert len(fake.requests) == 2 and "qwen-test" in str(caught.value)


def test_connection_refused_is_an_llm_error() -> None:
    client = LLMClient(dead_url(), "m", max_retries=1, backoff=0.01, timeout=1.0)
    with pytest.raises(LLMError, match="connection failed"):
        client.complete_json(MESSAGES, Fact)


def test_a_refused_connection_is_retried_once_whatever_the_retries_then_fails_fast() -> None:
    client = LLMClient(dead_url(), "m", max_retries=6, backoff=0.2, timeout=60.0)
    started = time.perf_counter()
    with pytest.raises(LLMError, match="is not reachable: connection failed"):
        client.complete_json(MESSAGES, Fact)
    # one quick retry (backoff 0.2–0.4 s), not six with doubling delays (≥ 12 s)
    assert time.perf_counter() - started < 3.0


def test_after_three_failed_calls_in_a_row_the_circuit_opens_and_no_request_is_sent(
        fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.responder = lambda request: Reply(500, {"error": "model crashed"})
    client = make_client(max_retries=0)
    for _ in range(3):
        with pytest.raises(LLMError, match="HTTP 500"):
            client.complete_json(MESSAGES, Fact)
    with pytest.raises(LLMError, match=r"3 calls in a row failed, so no more are tried; the last: .*HTTP 500"):
        client.complete_json(MESSAGES, Fact)
    assert len(fake.requests) == 3


def test_a_success_closes_the_count_of_failures(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    good = json.dumps({"subject": "Acme", "relation": "SUPPLIES", "target": "Globex"})
    script = iter([Reply(500, "x"), Reply(500, "x"), chat(good), Reply(500, "x"), Reply(500, "x"), chat(good)])
    fake.responder = lambda request: next(script)
    client = make_client(max_retries=0)
    outcomes = []
    for _ in range(6):
        try:
            outcomes.append(client.complete_json(MESSAGES, Fact).value.target)
        except LLMError:
            outcomes.append("failed")
    assert outcomes == ["failed", "failed", "Globex", "failed", "failed", "Globex"]


def test_base_url_without_scheme_is_rejected_at_once() -> None:
    with pytest.raises(LLMError, match="http://"):
        LLMClient("localhost:11434/v1", "m")


def test_401_fails_at_once(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.responder = lambda request: Reply(401, {"error": "invalid api key"})
    with pytest.raises(LLMError, match="HTTP 401") as caught:
        make_client(api_key="wrong").complete_json(MESSAGES, Fact)
    assert len(fake.requests) == 1 and "invalid api key" in str(caught.value)


def test_json_schema_rejection_falls_back_to_json_object_for_good(fake: FakeLLM,
                                                                  make_client: Callable[..., LLMClient]) -> None:
    fake.script.extend([Reply(400, {"error": "response_format json_schema not supported"}), good(), good()])
    client = make_client()
    assert client.complete_json(MESSAGES, Fact).value == Fact(**GOOD)
    assert [body["response_format"]["type"] for body in fake.bodies] == ["json_schema", "json_object"]
    assert "Fact" not in json.dumps(fake.bodies[1]["response_format"])
    assert "JSON Schema" in fake.bodies[1]["messages"][-1]["content"]  # the schema travels in the prompt
    assert fake.bodies[1]["messages"][: len(MESSAGES)] == MESSAGES
    assert not client.json_schema_supported
    client.complete_json([{"role": "user", "content": "another chunk"}], Fact)
    assert [body["response_format"]["type"] for body in fake.bodies] == ["json_schema", "json_object", "json_object"]


def test_other_400_is_not_a_fallback(fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.responder = lambda request: Reply(400, {"error": "context length exceeded"})
    client = make_client()
    with pytest.raises(LLMError, match="HTTP 400"):
        client.complete_json(MESSAGES, Fact)
    assert len(fake.requests) == 1 and client.json_schema_supported


# --- cache through the client ----------------------------------------------------------------------


def test_second_identical_call_is_served_from_cache(fake: FakeLLM, make_client: Callable[..., LLMClient],
                                                    tmp_path: Any) -> None:
    fake.script.append(good())
    client = make_client(cache=SQLiteStore(str(tmp_path / "store.db")).reply_cache())
    first = client.complete_json(MESSAGES, Fact, step="extract")
    second = client.complete_json(MESSAGES, Fact, step="extract")
    assert len(fake.requests) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.value == first.value and (second.tokens_in, second.tokens_out) == (50, 10)
    usage = client.usage["extract"]
    assert (usage.calls, usage.cached, usage.requests, usage.tokens_in) == (2, 1, 1, 50)
    fake.script.append(good())
    client.complete_json(MESSAGES, Fact, max_tokens=99)  # a different request is a different key
    assert len(fake.requests) == 2


def test_invalid_reply_is_not_cached(fake: FakeLLM, make_client: Callable[..., LLMClient], tmp_path: Any) -> None:
    cache = SQLiteStore(str(tmp_path / "store.db")).reply_cache()
    fake.responder = lambda request: chat('{"subject": "Acme"}')
    client = make_client(cache=cache, max_retries=1)
    with pytest.raises(LLMError):
        client.complete_json(MESSAGES, Fact)
    assert len(cache) == 0
    fake.responder = None
    fake.script.append(good())
    assert client.complete_json(MESSAGES, Fact).cached is False  # asked again, not replayed
    assert len(cache) == 1


def test_record_then_replay_without_network(fake: FakeLLM, make_client: Callable[..., LLMClient],
                                            tmp_path: Any) -> None:
    recorder = ReplayLLMCache(strict=False)
    fake.script.append(good())
    make_client(cache=recorder).complete_json(MESSAGES, Fact)
    assert recorder.record_to(tmp_path / "replies.json") == 1
    replay = LLMClient(dead_url(), "qwen-test", cache=ReplayLLMCache(tmp_path / "replies.json"))
    result = replay.complete_json(MESSAGES, Fact)
    assert result.cached and result.value == Fact(**GOOD) and len(fake.requests) == 1


# --- many requests ---------------------------------------------------------------------------------


def test_complete_many_keeps_order_caps_concurrency_and_isolates_failures(
        fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    def respond(request: dict[str, Any]) -> Reply:
        text = request["body"]["messages"][-1]["content"]
        if text == "chunk 5":
            return Reply(401, {"error": "forbidden chunk"}, delay=0.05)
        reply = chat(json.dumps({"subject": text, "relation": "IS", "target": text}))
        reply.delay = 0.05
        return reply

    fake.responder = respond
    client = make_client(max_concurrency=3)
    seen: list[tuple[int, int]] = []
    requests = [LLMRequest([{"role": "user", "content": f"chunk {i}"}], Fact, step="extract") for i in range(12)]
    results = client.complete_many(requests, progress=lambda done, total: seen.append((done, total)))
    assert len(results) == 12 and len(fake.requests) == 12
    assert 2 <= fake.max_in_flight <= 3
    assert isinstance(results[5], LLMError) and "forbidden chunk" in str(results[5])
    for index, result in enumerate(results):
        if index != 5:
            assert not isinstance(result, LLMError) and result.value.subject == f"chunk {index}"
    assert seen == [(done, 12) for done in range(1, 13)]
    assert client.usage["extract"].calls == 11


# --- a silent server, and a streamed reply (issue 25, defect 2) ---------------------------------------


def test_a_silent_server_fails_a_call_within_30_seconds_by_default_and_opens_the_circuit() -> None:
    with silent_url() as url, LLMClient(url, "m") as client:
        started = time.monotonic()
        with pytest.raises(LLMError, match="not reachable: timed out"):
            client.complete_text([{"role": "user", "content": "hi"}])
        assert time.monotonic() - started < 30
        assert client.circuit_open
        started = time.monotonic()
        with pytest.raises(LLMError, match="no more are tried"):
            client.complete_text([{"role": "user", "content": "again"}])
        assert time.monotonic() - started < 1


class _Streaming(BaseHTTPRequestHandler):
    """Server-sent events: one piece of the reply every `gap` seconds."""

    gap, pieces = 0.2, ["Ans", "wer ", "in ", "pieces", "."]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for i, piece in enumerate(self.pieces):
                time.sleep(self.gap)
                event = {"choices": [{"delta": {"content": piece}, "finish_reason": "stop" if i == 4 else None}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
        except OSError:
            pass  # the client gave up (the test of the whole-reply limit)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_streamed_reply_longer_than_the_first_byte_limit_is_read_whole() -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Streaming)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with LLMClient(f"http://127.0.0.1:{httpd.server_address[1]}/v1", "m", first_byte=0.5, timeout=5) as client:
            result = client.complete_text([{"role": "user", "content": "hi"}])  # 1 s in all, a piece every 0.2 s
        assert result.value == "Answer in pieces."
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_stream_past_the_whole_reply_limit_is_given_up_on() -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Streaming)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with LLMClient(f"http://127.0.0.1:{httpd.server_address[1]}/v1", "m", first_byte=0.5, timeout=0.5,
                       max_retries=0) as client, pytest.raises(LLMError, match=r"longer than 0\.5 s"):
            client.complete_text([{"role": "user", "content": "hi"}])
    finally:
        httpd.shutdown()
        httpd.server_close()
