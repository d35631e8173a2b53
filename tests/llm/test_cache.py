"""LLM reply caches: keys, and replay of recorded replies (the store's cache: store/sqlite/test_replies.py)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pydantic
import pytest

from hopgraph.llm import CachedReply, LLMClient, LLMError, LLMRequest, ReplayLLMCache, cache_key


class Answer(pydantic.BaseModel):
    answer: str


MESSAGES = [{"role": "user", "content": "Who supplies Globex?"}]


def dead_url() -> str:
    """A local port nothing listens on: reaching the network fails loudly with "connection failed"."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def offline_client(cache: object, **options: object) -> LLMClient:
    return LLMClient(dead_url(), "qwen-test", cache=cache, max_retries=0, backoff=0.01, timeout=1.0,
                     **options)  # type: ignore[arg-type]


# --- keys ------------------------------------------------------------------------------------------


def test_cache_key_is_canonical_and_covers_every_input() -> None:
    base = cache_key("m", MESSAGES, "Answer", 512, 0.0)
    assert len(base) == 64 and base == cache_key("m", [{"content": "Who supplies Globex?", "role": "user"}],
                                                 "Answer", 512, 0)
    variants = [
        cache_key("other", MESSAGES, "Answer", 512, 0.0),
        cache_key("m", [{"role": "user", "content": "Who supplies Acme?"}], "Answer", 512, 0.0),
        cache_key("m", MESSAGES, None, 512, 0.0),
        cache_key("m", MESSAGES, "Fact", 512, 0.0),
        cache_key("m", MESSAGES, "Answer", 256, 0.0),
        cache_key("m", MESSAGES, "Answer", 512, 0.7),
    ]
    assert len({base, *variants}) == 7


# --- replay ----------------------------------------------------------------------------------------


def write_replies(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_replay_serves_recorded_replies(tmp_path: Path) -> None:
    key = cache_key("qwen-test", MESSAGES, "Answer", 1024, 0.0)
    text_key = cache_key("qwen-test", MESSAGES, None, 64, 0.0)
    replies = write_replies(tmp_path / "replies.json", [
        {"key": key, "model": "qwen-test", "response": '{"answer": "Acme"}', "tokens_in": 40, "tokens_out": 6},
        {"key": text_key, "model": "qwen-test", "response": "Acme does.", "tokens_in": 40, "tokens_out": 3},
    ])
    client = offline_client(ReplayLLMCache(replies))
    assert client.complete_json(MESSAGES, Answer).value.answer == "Acme"
    assert client.complete_text(MESSAGES, max_tokens=64).value == "Acme does."


def test_strict_replay_miss_raises_instead_of_calling_the_network(tmp_path: Path) -> None:
    client = offline_client(ReplayLLMCache(write_replies(tmp_path / "replies.json", [])))
    with pytest.raises(LLMError, match="no recorded reply for") as caught:
        client.complete_json(MESSAGES, Answer)
    assert "replies.json" in str(caught.value)
    [failed] = client.complete_many([LLMRequest(MESSAGES, Answer)])  # a miss fails that item, not the batch
    assert isinstance(failed, LLMError) and "no recorded reply" in str(failed)


def test_lenient_replay_misses_reach_the_endpoint() -> None:
    client = offline_client(ReplayLLMCache(strict=False))
    with pytest.raises(LLMError, match="connection failed"):
        client.complete_json(MESSAGES, Answer)


def test_record_to_round_trips(tmp_path: Path) -> None:
    recorder = ReplayLLMCache(strict=False)
    recorder.put("b", "m", "second", 3, 4)
    recorder.put("a", "m", "first", 1, 2)
    assert recorder.record_to(tmp_path / "replies.json") == 2
    rows = json.loads((tmp_path / "replies.json").read_text(encoding="utf-8"))
    assert rows == [{"key": "a", "model": "m", "response": "first", "tokens_in": 1, "tokens_out": 2},
                    {"key": "b", "model": "m", "response": "second", "tokens_in": 3, "tokens_out": 4}]
    assert ReplayLLMCache(tmp_path / "replies.json").get("b") == CachedReply("m", "second", 3, 4)


@pytest.mark.parametrize("content", ["not json", '{"key": "a"}', '[{"key": "a"}]'])
def test_unreadable_replay_file_is_an_llm_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "replies.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LLMError, match="cannot read recorded LLM replies"):
        ReplayLLMCache(path)
