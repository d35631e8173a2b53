"""LLM reply caches: keys, the SQLite table beside the store, and replay of recorded replies."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
from pathlib import Path

import pydantic
import pytest

from hopgraph.errors import HopgraphError
from hopgraph.llm import CachedReply, LLMClient, LLMError, LLMRequest, ReplayLLMCache, SQLiteLLMCache, cache_key


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


# --- SQLite ----------------------------------------------------------------------------------------


def test_sqlite_cache_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    cache = SQLiteLLMCache(path)
    assert cache.get("k1") is None
    cache.put("k1", "qwen-test", '{"answer": "Acme"}', 40, 6)
    cache.close()
    reopened = SQLiteLLMCache(path)
    assert reopened.get("k1") == CachedReply("qwen-test", '{"answer": "Acme"}', 40, 6)
    assert len(reopened) == 1


def test_sqlite_put_is_committed_at_once_in_the_documented_table(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    cache = SQLiteLLMCache(path)
    cache.put("k1", "qwen-test", "text", 1, 2)
    other = sqlite3.connect(path)  # another connection sees it: nothing waits for a later commit
    try:
        columns = [row[1] for row in other.execute("PRAGMA table_info(llm_cache)")]
        assert columns == ["key", "model", "response", "tokens_in", "tokens_out", "created_at"]
        assert other.execute("SELECT key, response, created_at != '' FROM llm_cache").fetchall() == [("k1", "text", 1)]
    finally:
        other.close()
        cache.close()


def test_sqlite_cache_shares_the_store_file(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = sqlite3.connect(path, isolation_level=None)
    store.execute("PRAGMA journal_mode=WAL")
    store.execute("CREATE TABLE documents (id INTEGER PRIMARY KEY)")
    cache = SQLiteLLMCache(path)
    store.execute("BEGIN IMMEDIATE")
    store.execute("INSERT INTO documents VALUES (1)")
    store.execute("ROLLBACK")  # the run that asked failed …
    cache.put("k1", "m", "reply", 1, 1)
    assert cache.get("k1") is not None  # … the reply it paid for is kept
    store.close()
    cache.close()


def test_sqlite_cache_is_thread_safe(tmp_path: Path) -> None:
    cache = SQLiteLLMCache(tmp_path / "store.db")

    def work(worker: int) -> None:
        for item in range(25):
            cache.put(f"{worker}-{item}", "m", f"reply {worker} {item}", item, 1)
            assert cache.get(f"{worker}-{item}") is not None

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 150
    cache.close()


def test_sqlite_cache_in_an_unusable_place_is_an_llm_error(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="cannot open the LLM cache"):
        SQLiteLLMCache(tmp_path / "missing-dir" / "store.db")


def test_sqlite_hit_needs_no_network_and_stale_entries_are_asked_again(tmp_path: Path) -> None:
    cache = SQLiteLLMCache(tmp_path / "store.db")
    client = offline_client(cache)
    key = cache_key("qwen-test", MESSAGES, "Answer", 1024, 0.0)
    cache.put(key, "qwen-test", '```json\n{"answer": "Acme"}\n```', 40, 6)
    result = client.complete_json(MESSAGES, Answer, step="qa")
    assert (result.value, result.cached, result.tokens_in) == (Answer(answer="Acme"), True, 40)
    assert client.usage["qa"].requests == 0
    cache.put(key, "qwen-test", '{"reply": "older schema"}', 40, 6)
    with pytest.raises(LLMError, match="connection failed"):  # re-validation failed: it went to the network
        client.complete_json(MESSAGES, Answer)
    cache.close()


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
    sqlite_cache = SQLiteLLMCache(tmp_path / "store.db")
    sqlite_cache.put("c", "m", "third", 5, 6)
    assert sqlite_cache.record_to(tmp_path / "from_sqlite.json") == 1
    assert ReplayLLMCache(tmp_path / "from_sqlite.json").get("c") == CachedReply("m", "third", 5, 6)
    sqlite_cache.close()


@pytest.mark.parametrize("content", ["not json", '{"key": "a"}', '[{"key": "a"}]'])
def test_unreadable_replay_file_is_an_llm_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "replies.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LLMError, match="cannot read recorded LLM replies"):
        ReplayLLMCache(path)


def test_cache_blocked_by_a_write_transaction_is_a_run_error_not_an_item_failure(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    cache = SQLiteLLMCache(path, busy_timeout=0.05)
    store = sqlite3.connect(path, isolation_level=None)
    store.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(HopgraphError, match="write transaction") as caught:
            cache.put("k1", "m", "reply", 1, 1)
        assert not isinstance(caught.value, LLMError)
    finally:
        store.execute("ROLLBACK")
        store.close()
        cache.close()
