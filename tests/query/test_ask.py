"""`ask` modes: auto routes and says why, global questions reach community search, graph modes that
cannot run fall open to hybrid search with a note; unknown modes are input errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from spies import count_calls
from testkit import SUPPLIERS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError


@pytest.fixture
def suppliers(tmp_path: Path) -> HopGraph:
    shutil.copytree(SUPPLIERS / "docs", tmp_path / "docs")
    hg = HopGraph(str(tmp_path / "s.db"), Settings(), embedder=BagOfWordsEmbedder())
    hg.index([tmp_path / "docs"])
    hg.import_triples(SUPPLIERS / "triples.csv")
    yield hg
    hg.close()


def test_auto_sends_a_two_hop_question_to_graph_search_and_says_why(tiny_graph: HopGraph) -> None:
    asked = tiny_graph.ask("Where is the director of Big Stone Gap based?")
    assert asked.mode == "search" and asked.why.startswith("router: ")
    assert "multihop" in asked.why or "lookup" in asked.why
    titles = [h.title for h in asked.retrieval.hits]
    assert "Adriana Trigiani" in titles[:3]


def test_auto_answers_a_global_question_from_community_reports_with_citations(suppliers: HopGraph) -> None:
    asked = suppliers.ask("What risks keep showing up across these supplier documents?")
    assert asked.mode == "global" and "router: global" in asked.why
    chunk_ids = {int(c) for c in suppliers.search_index.table.ids}
    assert asked.citations and set(asked.citations) <= chunk_ids
    assert asked.text and asked.writer == "extractive"


def test_auto_falls_open_to_hybrid_when_there_is_no_graph_for_a_global_question(tiny_graph: HopGraph) -> None:
    asked = tiny_graph.ask("What are the main themes across these documents?")
    assert asked.mode == "search" and "router: global" in asked.why
    assert "fell open to hybrid search" in asked.note and "no relations" in asked.note
    assert asked.retrieval is not None and asked.retrieval.hits


@pytest.mark.parametrize("mode", ["global", "lazy", "drift"])
def test_corpus_modes_answer_with_real_chunk_citations(suppliers: HopGraph, mode: str) -> None:
    asked = suppliers.ask("Which suppliers depend on plants in Hosur?", mode=mode)
    assert asked.mode == mode and asked.why == "asked for"
    chunk_ids = {int(c) for c in suppliers.search_index.table.ids}
    assert asked.citations and set(asked.citations) <= chunk_ids
    assert asked.used  # every mode reports what it spent


def test_search_mode_uses_the_method_asked_for(tiny_graph: HopGraph) -> None:
    asked = tiny_graph.ask("Gap Inc. clothing retailer", mode="search", method="bm25", top=2)
    assert asked.why == "--method bm25" and [h.found_by for h in asked.retrieval.hits] == ["bm25", "bm25"]


def test_an_unknown_mode_is_an_input_error(tiny_graph: HopGraph) -> None:
    with pytest.raises(InputError, match="unknown mode 'sideways'"):
        tiny_graph.ask("Who?", mode="sideways")


def test_auto_routes_a_question_once(tiny_graph: HopGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    import hopgraph.retrieval.router as router

    calls = count_calls(monkeypatch, router.route)
    tiny_graph.ask("Where is the director of Big Stone Gap based?")
    assert len(calls) == 1  # with an LLM router an undecided question would otherwise cost two calls


def test_over_markdown_reports_the_answer_quotes_sentences_never_a_heading(suppliers: HopGraph) -> None:
    # Issue 22: the answer box quoted "# Company Profile: Corvane Brake Systems".
    asked = suppliers.ask("Which town is the plant of the company that supplies Corvane Brake Systems in?",
                          mode="search")
    assert any(hit.text.lstrip().startswith("#") for hit in asked.retrieval.hits)  # headings were there to quote
    quoted = asked.text.splitlines()
    assert quoted and not any(line.lstrip('"').startswith("#") for line in quoted)
    assert asked.short is None or not asked.short.sentence.startswith("#")


def test_a_question_for_a_car_maker_gets_the_company_named_in_the_evidence(suppliers: HopGraph) -> None:
    asked = suppliers.ask("Which car maker gets its front and rear seats from Plushon Seating Systems?", mode="search")
    assert asked.short is not None and asked.short.text == "Zephyra"
    assert "Zephyra" in asked.short.sentence and asked.short.chunk_id in set(asked.citations) | {
        h.chunk_id for h in asked.retrieval.hits}
