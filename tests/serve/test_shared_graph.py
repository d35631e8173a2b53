"""Concurrent requests over real HTTP: 20 questions at once get the answers they get one by one,
and questions keep being answered while a document is being indexed."""

from __future__ import annotations

import json
import threading
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


def test_questions_are_answered_while_a_document_is_indexed(fresh_store):
    paragraphs = [f"Studio {i} of the Marrowgate cluster builds engines for the Quellbrook console, model {i}."
                  for i in range(300)]
    questions = sample_questions(6)
    with running_server(fresh_store) as base:
        before = [without_timings(ask(base, q).json()) for q in questions]
        added: list[httpx.Response] = []
        writer = threading.Thread(target=lambda: added.append(httpx.post(
            f"{base}/documents", json={"title": "Marrowgate cluster", "text": "\n\n".join(paragraphs)}, timeout=600)))
        writer.start()
        during: list[httpx.Response] = []
        while writer.is_alive() or not during:
            with ThreadPoolExecutor(len(questions)) as pool:
                during += pool.map(lambda q: ask(base, q), questions)
        writer.join()
        assert added[0].status_code == 201, added[0].text
        assert during and all(r.status_code == 200 for r in during)
        assert all(r.json()["hits"] for r in during)
        answered_first = [without_timings(r.json()) for r in during[: len(questions)]]
        assert answered_first == before  # the first round ran on the index as it was before the write
        found = httpx.post(f"{base}/ask", json={"question": "Who builds engines for the Quellbrook console?",
                                                "mode": "search", "method": "hybrid"}, timeout=300).json()
        assert found["hits"][0]["title"] == "Marrowgate cluster"
