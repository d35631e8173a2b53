"""LLMClient.stream_text against a real server on 127.0.0.1 that streams its reply piece by piece."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from fake_llm import GOOD, MESSAGES, Fact, FakeLLM, chat, dead_url

from hopgraph.llm import LLMClient, LLMError
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.text.tokens import count_tokens

# --- streamed replies (stream_text) against a server that streams -----------------------------------


def test_stream_text_yields_the_pieces_in_order_as_they_come_and_counts_the_servers_usage(streaming_llm) -> None:
    llm, url = streaming_llm
    llm.reset(gap=0.1)
    with LLMClient(url, "qwen-test", max_retries=0) as client:
        arrived = [(piece, time.monotonic()) for piece in client.stream_text(MESSAGES, step="answer")]
        usage = client.usage["answer"]
    assert "".join(piece for piece, _ in arrived) == "Hosur is where the foundry casts brake drums"
    assert len(arrived) == 8 and arrived[-1][1] - arrived[0][1] >= 0.5  # a piece at a time, not all at the end
    assert llm.bodies[0]["stream"] is True and llm.bodies[0]["stream_options"] == {"include_usage": True}
    assert (usage.calls, usage.requests, usage.tokens_in, usage.tokens_out) == (1, 1, 42, 8)


def test_stream_text_counts_the_tokens_itself_when_the_server_sends_no_usage(streaming_llm) -> None:
    llm, url = streaming_llm
    llm.reset(usage=False)
    with LLMClient(url, "qwen-test", max_retries=0) as client:
        text = "".join(client.stream_text(MESSAGES, step="answer"))
        usage = client.usage["answer"]
    assert usage.tokens_out == count_tokens(text) and usage.tokens_in == sum(count_tokens(m["content"])
                                                                             for m in MESSAGES)


def test_a_server_silent_before_its_first_byte_hits_the_first_byte_limit(streaming_llm) -> None:
    llm, url = streaming_llm
    llm.reset(first_delay=3.0)
    started = time.monotonic()
    with LLMClient(url, "qwen-test", max_retries=0, first_byte=0.3) as client, \
            pytest.raises(LLMError, match="timed out"):
        list(client.stream_text(MESSAGES))
    assert time.monotonic() - started < 2.5


def test_a_server_silent_after_its_first_pieces_ends_the_stream_in_an_error(streaming_llm) -> None:
    llm, url = streaming_llm
    llm.reset(stall_after=2, stall=5.0)
    got: list[str] = []
    started = time.monotonic()
    with LLMClient(url, "qwen-test", max_retries=3, backoff=0.01, first_byte=0.5) as client:
        with pytest.raises(LLMError, match=r"broke off.*timed out"):
            got.extend(client.stream_text(MESSAGES))
        assert not client.circuit_open
    assert got == ["Hosur", " is"] and len(llm.bodies) == 1  # shown pieces are never asked for again
    assert time.monotonic() - started < 2.5


def test_the_deadline_ends_a_stream_that_flows_too_long(streaming_llm) -> None:
    llm, url = streaming_llm
    llm.reset(pieces=lambda body: ["word "] * 100, gap=0.05)
    started = time.monotonic()
    with LLMClient(url, "qwen-test", max_retries=0) as client, client.deadline(0.6), \
            pytest.raises(LLMError, match="took longer"):
        list(client.stream_text(MESSAGES))
    assert time.monotonic() - started < 2.0


def test_closing_the_stream_early_closes_the_connection_and_the_server_sees_it(streaming_llm) -> None:
    llm, url = streaming_llm
    llm.reset(pieces=lambda body: ["word "] * 200, gap=0.02)
    with LLMClient(url, "qwen-test", max_retries=0) as client:
        pieces = client.stream_text(MESSAGES, step="answer")
        assert [next(pieces), next(pieces)] == ["word ", "word "]
        pieces.close()
        assert llm.disconnected.wait(5), "the server kept writing to a client that had gone"
        assert not llm.completed.is_set() and llm.sent < 200
        assert client.usage["answer"].calls == 0 and not client.circuit_open  # not a reply, not a failure


def test_a_streamed_reply_is_cached_and_replayed_as_one_piece(streaming_llm, tmp_path) -> None:
    llm, url = streaming_llm
    store = SQLiteStore(str(tmp_path / "cache.db"))
    with LLMClient(url, "qwen-test", max_retries=0, cache=store.reply_cache()) as client:
        first = list(client.stream_text(MESSAGES))
        again = list(client.stream_text(MESSAGES))
        usage = client.usage["default"]
    store.close()
    assert len(first) == 8 and again == ["".join(first)] and len(llm.bodies) == 1
    assert (usage.calls, usage.cached) == (2, 1)


def test_a_streamed_reply_that_breaks_its_schema_is_an_error_and_is_not_cached(streaming_llm, tmp_path) -> None:
    llm, url = streaming_llm
    store = SQLiteStore(str(tmp_path / "cache.db"))
    with LLMClient(url, "qwen-test", max_retries=0, cache=store.reply_cache()) as client:
        with pytest.raises(LLMError, match="does not match Fact"):
            list(client.stream_text(MESSAGES, response_model=Fact))
        assert llm.bodies[0]["response_format"]["json_schema"]["name"] == "Fact"
        llm.reset(pieces=lambda body: ['{"subject": "Acme", ', '"relation": "SUPPLIES", "target": "Globex"}'])
        assert json.loads("".join(client.stream_text(MESSAGES, response_model=Fact))) == GOOD
    store.close()


def test_stream_text_reads_a_server_that_ignores_stream_as_one_piece(
        fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.script.append(chat("Hosur", {"prompt_tokens": 7, "completion_tokens": 1}))
    client = make_client()
    assert list(client.stream_text(MESSAGES, step="answer")) == ["Hosur"]
    assert client.usage["answer"].tokens_in == 7


def test_stream_text_to_a_server_that_is_not_there_fails_fast_and_opens_the_circuit() -> None:
    started = time.monotonic()
    with LLMClient(dead_url(), "qwen-test", max_retries=3, backoff=0.01) as client:
        with pytest.raises(LLMError, match="not reachable"):
            list(client.stream_text(MESSAGES))
        with pytest.raises(LLMError, match="calls in a row failed"):
            list(client.stream_text(MESSAGES))
    assert time.monotonic() - started < 3.0
