"""The SQLite store's reply cache: the `llm_cache` table on a connection of its own, opened by the store."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pydantic
import pytest

from hopgraph.errors import HopgraphError
from hopgraph.llm import CachedReply, LLMClient, LLMError, ReplayLLMCache, cache_key
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.store.sqlite.replies import SQLiteLLMCache


class Answer(pydantic.BaseModel):
    answer: str


MESSAGES = [{"role": "user", "content": "Who supplies Globex?"}]


def open_cache(path: Path, busy_timeout: float = 30.0) -> SQLiteLLMCache:
    """The cache as hopgraph opens it: through the store that holds it."""
    store = SQLiteStore(str(path), lock_timeout=busy_timeout)
    cache = store.reply_cache()
    store.close()
    assert isinstance(cache, SQLiteLLMCache)
    return cache


def offline_client(cache: object) -> LLMClient:
    with __import__("socket").socket() as probe:  # a local port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return LLMClient(f"http://127.0.0.1:{port}/v1", "qwen-test", cache=cache, max_retries=0, backoff=0.01,
                     timeout=1.0)  # type: ignore[arg-type]


# --- the table ----------------------------------------------------------------------------------------


def test_sqlite_cache_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    cache = open_cache(path)
    assert cache.get("k1") is None
    cache.put("k1", "qwen-test", '{"answer": "Acme"}', 40, 6)
    cache.close()
    reopened = open_cache(path)
    assert reopened.get("k1") == CachedReply("qwen-test", '{"answer": "Acme"}', 40, 6)
    assert len(reopened) == 1


def test_sqlite_put_is_committed_at_once_in_the_documented_table(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    cache = open_cache(path)
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
    cache = open_cache(path)
    store = sqlite3.connect(path, isolation_level=None)
    store.execute("BEGIN IMMEDIATE")
    store.execute("INSERT INTO meta VALUES ('run', 'unfinished')")
    store.execute("ROLLBACK")  # the run that asked failed …
    cache.put("k1", "m", "reply", 1, 1)
    assert cache.get("k1") is not None  # … the reply it paid for is kept
    store.close()
    cache.close()


def test_sqlite_cache_is_thread_safe(tmp_path: Path) -> None:
    cache = open_cache(tmp_path / "store.db")

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
    cache = open_cache(tmp_path / "store.db")
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




def test_record_to_writes_the_replay_format(tmp_path: Path) -> None:
    cache = open_cache(tmp_path / "store.db")
    cache.put("c", "m", "third", 5, 6)
    assert cache.record_to(tmp_path / "from_sqlite.json") == 1
    assert ReplayLLMCache(tmp_path / "from_sqlite.json").get("c") == CachedReply("m", "third", 5, 6)
    cache.close()


def test_cache_blocked_by_a_write_transaction_is_a_run_error_not_an_item_failure(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    cache = open_cache(path, busy_timeout=0.05)
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
