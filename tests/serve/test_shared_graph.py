"""Concurrent requests over real HTTP: 20 questions at once get the answers they get one by one,
and questions are answered while a document is indexed, from the index before it or after it."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
from serve_kit import running_server, without_timings

from hopgraph.cli.demo import sample_path

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
