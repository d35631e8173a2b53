"""`ask`'s `found` hook (query/asking.py): it sees the mode's route and hits before search's answer
is written — offline and before the LLM is called — so a stream can send them while the answer is
made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_llm import chat
from streaming_llm import json_answer
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.query.writers import NO_ANSWER_REFUSED
from hopgraph.records.answers import Answer

QUESTION = "Where is the director of Big Stone Gap based?"


def test_found_sees_the_hits_before_the_extractive_answer(tiny_graph: HopGraph) -> None:
    seen: list[tuple[str, str, list[int], str]] = []

    def found(partial: Answer) -> None:
        seen.append((partial.mode, partial.why, [hit.chunk_id for hit in partial.hits], partial.text))

    asked = tiny_graph.ask(QUESTION, found=found)
    assert asked.text and asked.writer == "extractive"
    assert seen == [(asked.mode, asked.why, [hit.chunk_id for hit in asked.hits], "")]  # once, no text yet


def test_found_comes_before_the_llm_is_asked(tmp_path: Path, server, fake) -> None:
    _, url = server
    hg = HopGraph(str(tmp_path / "f.db"), Settings(llm_url=url, llm_model="scripted", top=2),
                  embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    calls_when_found: list[int] = []
    hits = hg.search(QUESTION, "hybrid+names+links", top=2).hits
    fake.script.append(chat(json.dumps({"answer": "Greenwich Village", "citations": [hits[0].chunk_id]})))
    try:
        asked = hg.ask(QUESTION, mode="search", found=lambda partial: calls_when_found.append(len(fake.requests)))
    finally:
        hg.close()
    assert asked.text == "Greenwich Village" and asked.writer == "llm:scripted"
    assert calls_when_found == [0] and len(fake.requests) == 1



def streaming_graph(tmp_path: Path, url: str) -> HopGraph:
    hg = HopGraph(str(tmp_path / "s.db"), Settings(llm_url=url, llm_model="streamer", top=2),
                  embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    return hg


def test_on_token_is_told_the_answer_as_the_model_writes_it_and_the_whole_is_checked(tmp_path, streaming_llm):
    llm, url = streaming_llm
    llm.reset(pieces=json_answer("Greenwich Village, New York City", also_cite=(99999,)), gap=0.05)
    told: list[tuple[str, int]] = []
    with streaming_graph(tmp_path, url) as hg:
        asked = hg.ask(QUESTION, mode="search", on_token=lambda piece: told.append((piece, llm.sent)))
    assert "".join(piece for piece, _ in told) == asked.text == "Greenwich Village, New York City"
    assert len(told) > 3 and told[0][1] < told[-1][1]  # told while the server was still writing
    assert asked.writer == "llm:streamer" and asked.citations == [asked.hits[0].chunk_id]
    assert "1 citation(s) of chunks the model was not given were dropped" in asked.note
    assert llm.bodies[0]["stream"] is True and asked.used.llm_calls == 1 and asked.used.tokens_in == 42


def test_a_streamed_refusal_is_said_to_be_one(tmp_path, streaming_llm):
    llm, url = streaming_llm
    llm.reset(pieces=json_answer("The chunks do not say."))
    told: list[str] = []
    with streaming_graph(tmp_path, url) as hg:
        asked = hg.ask(QUESTION, mode="search", on_token=told.append)
    assert "".join(told) == "The chunks do not say."
    assert asked.text.startswith(NO_ANSWER_REFUSED) and asked.citations == []


def test_an_on_token_that_raises_stops_the_model(tmp_path, streaming_llm):
    llm, url = streaming_llm
    llm.reset(pieces=json_answer("word " * 200, size=2), gap=0.01)

    def leave(piece: str) -> None:
        raise ConnectionAbortedError("the reader went away")

    with streaming_graph(tmp_path, url) as hg, pytest.raises(ConnectionAbortedError):
        hg.ask(QUESTION, mode="search", on_token=leave)
    assert llm.disconnected.wait(5) and not llm.completed.is_set()
