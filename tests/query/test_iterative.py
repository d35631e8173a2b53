"""Iterative retrieval (IRCoT) against the fake OpenAI-compatible server on 127.0.0.1: the model's
next search is run, each step traced, citations checked, and a model that never answers gets one
last answer call over everything found."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_llm import Reply, chat
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.llm import LLMError
from hopgraph.prompts import iterative_step, search_answer
from hopgraph.query.question import AskLimits

BSG = "The director of Big Stone Gap is based in what New York city?"


def facade(tmp_path: Path, url: str, **settings) -> HopGraph:
    hg = HopGraph(str(tmp_path / "it.db"), Settings(llm_url=url, llm_model="scripted", top=2, **settings),
                  embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    return hg


def user_text(request: dict) -> str:
    return request["body"]["messages"][1]["content"]


def given_chunks(request: dict) -> list[int]:
    return [int(n) for n in re.findall(r"\[chunk (\d+)\]", user_text(request))]


def step_reply(known: str, answer: str = "", citations: list[int] | None = None, next_search: str = "") -> Reply:
    return chat(json.dumps({"known": known, "answer": answer, "citations": citations or [],
                            "next_search": next_search}))


def chunk_of(hg: HopGraph, title: str) -> int:
    table = hg.store.chunk_table()
    return next(int(c) for c, d in zip(table.ids, table.doc_ids, strict=True) if table.titles[int(d)] == title)


def test_the_models_next_search_is_run_and_its_answer_cites_only_chunks_it_was_given(tmp_path, server, fake):
    def respond(request: dict) -> Reply:
        if "Searches run:\n- " + BSG + "\n\n" in user_text(request):  # the first step: the question alone
            return step_reply("Big Stone Gap was directed by Adriana Trigiani.",
                              next_search="Adriana Trigiani based in")
        return step_reply("Adriana Trigiani is based in Greenwich Village.", "Greenwich Village",
                          [*given_chunks(request)[-1:], 999])

    fake.responder = respond
    with facade(tmp_path, server[1]) as hg:
        asked = hg.ask(BSG, mode="iterative")
        trigiani = chunk_of(hg, "Adriana Trigiani")
    assert [step.search for step in asked.steps] == [BSG, "Adriana Trigiani based in"]
    assert asked.steps[1].answer == "Greenwich Village" and asked.steps[0].next_search
    assert trigiani in {hit.chunk_id for hit in asked.hits}  # found by the second search
    assert asked.text == "Greenwich Village" and asked.writer == "llm:scripted"
    assert 999 not in asked.citations and asked.citations and set(asked.citations) <= {h.chunk_id for h in asked.hits}
    assert "1 citation(s) of chunks the model was not given were dropped" in asked.note
    assert asked.used.llm_calls == 2 and asked.used.tokens_in >= 0
    second = fake.requests[-1]
    assert "- Adriana Trigiani based in" in user_text(second)  # the model sees the searches it ran
    assert len({h.chunk_id for h in asked.hits}) == len(asked.hits)  # a chunk found twice is kept once


def never_answering() -> Callable[[dict], Reply]:
    """A model that never answers during the steps (each names a next search), then answers when asked to."""
    searches = iter(["Adriana Trigiani", "Greenwich Village neighborhood", "never run"])

    def respond(request: dict) -> Reply:
        if request["body"]["messages"][0]["content"] == search_answer.SYSTEM:
            return chat(json.dumps({"answer": "Greenwich Village", "citations": given_chunks(request)[:1]}))
        return step_reply("not yet", next_search=next(searches))
    return respond


def test_a_model_that_never_answers_gets_one_answer_call_over_everything_found(tmp_path, server, fake):
    fake.responder = never_answering()
    with facade(tmp_path, server[1], iterative_steps=3) as hg:
        asked = hg.ask(BSG, mode="iterative")
    systems = [r["body"]["messages"][0]["content"] for r in fake.requests]
    assert systems == [iterative_step.SYSTEM] * 3 + [search_answer.SYSTEM]  # 3 steps, then the answer
    assert [s.search for s in asked.steps] == [BSG, "Adriana Trigiani", "Greenwich Village neighborhood"]
    assert asked.text == "Greenwich Village" and asked.used.llm_calls == 4


def test_a_steps_limit_bounds_one_question_below_the_setting(tmp_path, server, fake):
    fake.responder = never_answering()
    with facade(tmp_path, server[1], iterative_steps=3) as hg:
        asked = hg.ask(BSG, mode="iterative", limits=AskLimits(steps=2))
    assert [s.search for s in asked.steps] == [BSG, "Adriana Trigiani"]  # 2 steps, then the answer call
    assert asked.used.llm_calls == 3


def test_a_search_already_run_ends_the_loop(tmp_path, server, fake):
    def respond(request: dict) -> Reply:
        if request["body"]["messages"][0]["content"] == search_answer.SYSTEM:
            return chat(json.dumps({"answer": "I don't know", "citations": []}))
        return step_reply("nothing new", next_search=BSG.upper())  # the question again, in other case

    fake.responder = respond
    with facade(tmp_path, server[1]) as hg:
        asked = hg.ask(BSG, mode="iterative")
    assert len(asked.steps) == 1
    # A refusal is shown as one, never as an answer, and cites nothing.
    assert asked.text.startswith("(the model found no answer in the hits)") and asked.citations == []


def test_iterative_needs_an_llm(tiny_graph: HopGraph) -> None:
    with pytest.raises(HopgraphError, match="iterative needs an LLM"):
        tiny_graph.ask(BSG, mode="iterative")


def test_the_llm_calls_of_one_question_share_a_deadline(tmp_path, server, fake):
    fake.responder = lambda request: Reply(body={"choices": []}, delay=3.0)  # a server that is slow to say nothing
    with facade(tmp_path, server[1], llm_deadline=1.0) as hg:
        started = time.perf_counter()
        with pytest.raises(LLMError, match="deadline of 1 s"):
            hg.ask(BSG, mode="iterative")
        assert time.perf_counter() - started < 2.5  # not the 3 s reply, nor its retries
