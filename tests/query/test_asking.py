"""`ask`'s `found` hook (query/asking.py): it sees the mode's route and hits before search's answer
is written — offline and before the LLM is called — so a stream can send them while the answer is
made."""

from __future__ import annotations

import json
from pathlib import Path

from fake_llm import chat
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
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

