"""Concurrent requests over real HTTP: 20 questions at once get the answers they get one by one,
questions are answered while a document is indexed, from the index before it or after it, and
what another process indexes or extracts into the store is seen by the next request."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import httpx
from serve_kit import cli_json, running_server, without_timings

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.records.documents import Document
from hopgraph.serve.shared_graph import SharedGraph

T = TypeVar("T")

CONCURRENT = 20


def sample_questions(n: int) -> list[str]:
    return [record["question"] for record in json.loads(sample_path().read_text(encoding="utf-8"))[:n]]


def ask(base: str, question: str) -> httpx.Response:
    return httpx.post(f"{base}/ask", json={"question": question}, timeout=300)


def test_twenty_concurrent_questions_get_the_answers_they_get_one_by_one(server):
    questions = sample_questions(CONCURRENT)
    one_by_one = [ask(server, q) for q in questions]
    with ThreadPoolExecutor(CONCURRENT) as pool:
        together = list(pool.map(lambda q: ask(server, q), questions))
    assert [r.status_code for r in one_by_one + together] == [200] * (2 * CONCURRENT)
    assert [without_timings(r.json()) for r in together] == [without_timings(r.json()) for r in one_by_one]
    assert all(r.json()["hits"] for r in together)


def test_questions_are_answered_while_a_document_is_indexed_from_the_old_index_or_the_new(fresh_store):
    paragraphs = [f"Studio {i} of the Marrowgate cluster builds engines for the Quellbrook console, model {i}."
                  for i in range(60)]
    questions = [*sample_questions(4), "Who builds engines for the Quellbrook console?"]
    with running_server(fresh_store) as base:
        before = [search(base, q) for q in questions]
        written: dict[str, object] = {}

        def add() -> None:
            written["response"] = httpx.post(f"{base}/documents", timeout=600, json={
                "title": "Marrowgate cluster", "text": "\n\n".join(paragraphs)})
            written["done"] = time.monotonic()

        writer = threading.Thread(target=add)
        writer.start()
        during: list[tuple[float, dict]] = []  # (when it was answered, the answer)
        with ThreadPoolExecutor(len(questions)) as pool:
            while writer.is_alive() or not during:
                during += pool.map(lambda q: answered_when(base, q), questions)
        writer.join()
        assert written["response"].status_code == 201, written["response"].text
        after = [search(base, q) for q in questions]
    assert any(finished < written["done"] for finished, _ in during)  # reads did not wait for the write
    assert after[-1]["hits"][0]["title"] == "Marrowgate cluster" != before[-1]["hits"][0]["title"]
    for i, (_, answer) in enumerate(during):
        assert answer in (before[i % len(questions)], after[i % len(questions)])


def answered_when(base: str, question: str) -> tuple[float, dict]:
    answer = search(base, question)
    return time.monotonic(), answer


def search(base: str, question: str) -> dict:
    """The ranked chunks for a question (no answer sentences: the test is about the index)."""
    answered = httpx.post(f"{base}/ask", json={"question": question, "mode": "search", "method": "hybrid",
                                               "answer": False}, timeout=300)
    assert answered.status_code == 200, answered.text
    return without_timings(answered.json())


QUELLBROOK = "Who builds engines for the Quellbrook console?"


def test_the_next_request_sees_what_another_process_indexed_and_extracted(fresh_store, tmp_path):
    folder = tmp_path / "newdocs"
    folder.mkdir()
    (folder / "marrowgate.txt").write_text("The Marrowgate cluster builds engines for the Quellbrook console.\n\n"
                                           "Marrowgate Studios is based in Tallinn.\n", encoding="utf-8")
    with running_server(fresh_store) as base:
        before = search(base, QUELLBROOK)  # the server's reader is loaded and has answered
        assert not entities(base, "quellbrook")
        indexed = cli_json("index", str(folder), "--store", str(fresh_store))
        assert indexed["added"] == 1
        after = search(base, QUELLBROOK)
        top = after["hits"][0]
        assert "marrowgate.txt" in top["source"] and "marrowgate.txt" not in before["hits"][0]["source"]
        document = httpx.get(f"{base}/documents/{top['doc']}", timeout=60).json()
        assert any("Quellbrook console" in chunk["text"] for chunk in document["chunks"]), document
        assert not entities(base, "quellbrook")  # indexed, not yet extracted
        cli_json("extract", "--store", str(fresh_store))  # a knowledge-graph rebuild by another process
        assert any("Quellbrook" in e["name"] for e in entities(base, "quellbrook"))


def quellbrook(hg: HopGraph) -> bool:
    return any("Quellbrook" in e.name for e in hg.knowledge_graph.entities.values())


def entities(base: str, q: str) -> list[dict]:
    found = httpx.get(f"{base}/entities", params={"q": q}, timeout=60)
    assert found.status_code == 200, found.text
    return found.json()


def test_after_another_process_wrote_one_fresh_reader_serves_every_request_and_the_writer_reloads(
        fresh_store, monkeypatch):
    shared = SharedGraph(str(fresh_store), Settings(refresh_seconds=0))  # no watcher: the requests find it
    warmed = []
    warm = shared._warm_reader
    monkeypatch.setattr(shared, "_warm_reader", lambda: warmed.append(1) or warm())
    try:
        assert not shared.write(quellbrook)  # the writer has loaded its graph view
        with HopGraph(str(fresh_store), Settings(), embedder=shared._embedder) as other:  # another process
            other.index_documents([Document("Marrowgate cluster", "The Marrowgate cluster builds engines for the "
                                            "Quellbrook console.", "elsewhere")])
            other.extract_without_llm()
        with ThreadPoolExecutor(CONCURRENT) as pool:
            found = list(pool.map(lambda _: shared.read(lambda hg: hg.search(QUELLBROOK, "hybrid", 1).hits[0].title),
                                  range(CONCURRENT)))
        assert found == ["Marrowgate cluster"] * CONCURRENT
        assert len(warmed) == 1  # one thread warmed it, the others waited for it
        assert shared.read(quellbrook) and shared.write(quellbrook)
    finally:
        shared.close()


def test_the_watcher_loads_another_process_write_before_any_request_asks(fresh_store, monkeypatch):
    """Issue 24: a replica sees a write within `refresh_seconds` plus one warm, with no request to
    find it; the first request after that is answered by the reader the watcher warmed."""
    shared = SharedGraph(str(fresh_store), Settings(refresh_seconds=0.2))
    warmed: list[float] = []
    warm = shared._warm_reader
    monkeypatch.setattr(shared, "_warm_reader", lambda: warmed.append(time.perf_counter()) or warm())
    first = shared._reader
    try:
        with HopGraph(str(fresh_store), Settings(), embedder=shared._embedder) as other:  # another process
            other.index_documents([Document("Marrowgate cluster", "The Marrowgate cluster builds engines for the "
                                            "Quellbrook console.", "elsewhere")])
        written = time.perf_counter()
        # Only identity is compared: the watcher closes the reader it replaces, so asking `first`
        # (or any reader not leased) whether it is stale could meet a closed connection.
        while shared._reader is first and time.perf_counter() - written < 30:
            time.sleep(0.05)  # the swap follows the warm
        assert warmed, "no fresh reader was loaded without a request"
        with HopGraph(str(fresh_store), Settings(), embedder=shared._embedder) as other:
            assert shared.serving().generation == other.store.meta()["generation"]  # what GET /health says
        assert shared.read(lambda hg: hg.search(QUELLBROOK, "hybrid", 1).hits[0].title) == "Marrowgate cluster"
        assert len(warmed) == 1  # the request found the watcher's reader current
    finally:
        shared.close()
    assert not shared._watcher.is_alive()


@contextmanager
def writer_held(shared: SharedGraph) -> Iterator[None]:
    """A write runs on `shared` (an upload, say) until the block ends."""
    release, holding = threading.Event(), threading.Event()

    def long_write(hg: HopGraph) -> None:
        holding.set()
        release.wait(120)

    writer = threading.Thread(target=shared.write, args=(long_write,))
    writer.start()
    try:
        holding.wait(30)
        yield
    finally:
        release.set()
        writer.join()


def returned_within(seconds: float, call: Callable[[], T]) -> tuple[list[T], threading.Thread]:
    """Starts `call` in a thread; after `seconds`, what it returned so far (nothing if still running)."""
    returned: list[T] = []
    thread = threading.Thread(target=lambda: returned.append(call()))
    thread.start()
    thread.join(seconds)
    return returned, thread


def test_a_question_that_may_write_does_not_wait_for_a_running_write(fresh_store):
    """Issue 25 (1): a global question (it stores the community tree it makes) while an upload holds
    the writer is answered from a reader, not queued behind the upload."""
    import anyio

    from hopgraph.serve.routes.ask import AskRequest
    from hopgraph.serve.routes.ask import ask as ask_route

    shared = SharedGraph(str(fresh_store), Settings())
    question = AskRequest(question="What are the main themes?", mode="global")
    try:
        with writer_held(shared):  # the route is async: it runs on its own loop in the thread
            answered, asker = returned_within(60, lambda: anyio.run(ask_route, question, shared))
            assert answered, "the global question waited for the write"
        asker.join()
    finally:
        shared.close()
    assert json.loads(answered[0].body)["mode"] == "global"


def test_the_community_tree_does_not_wait_for_a_running_write(fresh_store):
    """Issue 25: GET /communities builds the tree on first use; while an upload holds the writer it
    builds it on a reader instead of queueing behind the upload."""
    from hopgraph.serve.routes.graph import communities

    shared = SharedGraph(str(fresh_store), Settings())
    try:
        assert shared.read(lambda hg: hg.store.community_tree()) is None  # the request has to build it
        with writer_held(shared):
            answered, asker = returned_within(60, lambda: communities(shared))
            assert answered, "the community tree waited for the write"
        asker.join()
        assert answered[0]["count"] > 0
        assert communities(shared)["count"] == answered[0]["count"]
    finally:
        shared.close()
