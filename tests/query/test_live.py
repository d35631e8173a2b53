"""Live extraction through `ask --mode local|paths`, against a real HTTP server on 127.0.0.1 playing
recorded extraction replies (support/naming_llm.py): a document indexed after the extraction is read
when a question's top hits reach it, the answer walks its facts, and the facts stay in the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_llm import FakeLLM, serving
from naming_llm import extraction_texts, responder
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.kg.extractors.llm import extractor_id
from hopgraph.prompts import answer as answer_prompt
from hopgraph.records.documents import Document

MODEL = "qwen-live"
EXTRACTOR = extractor_id(MODEL)


def org(name: str) -> dict:
    return {"name": name, "type": "ORG", "description": ""}


def place(name: str) -> dict:
    return {"name": name, "type": "LOCATION", "description": ""}


def located(source: str, target: str) -> dict:
    return {"source": source, "relation": "LOCATED_IN", "target": target, "description": "", "date": None}


DOCS = [Document("Anvaya profile", "Anvaya Foundry runs a grey-iron plant in Hosur.", "kg"),
        Document("Supply agreement", "Anvaya Foundry supplies castings to Corvane Brake Systems.", "kg")]
FRESH = Document("Kestrel move", "Kestrel Castings has moved its casting line to Ranipet.", "kg")
LATER = Document("Orla move", "Orla Forge has moved its press shop to Vellore.", "kg")
REPLIES = {
    DOCS[0].text: {"entities": [org("Anvaya Foundry"), place("Hosur")],
                   "relations": [located("Anvaya Foundry", "Hosur")]},
    DOCS[1].text: {"entities": [org("Anvaya Foundry"), org("Corvane Brake Systems")],
                   "relations": [{"source": "Anvaya Foundry", "relation": "SUPPLIES", "target": "Corvane Brake Systems",
                                  "description": "", "date": None}]},
    FRESH.text: {"entities": [org("Kestrel Castings"), place("Ranipet")],
                 "relations": [located("Kestrel Castings", "Ranipet")]},
    LATER.text: {"entities": [org("Orla Forge"), place("Vellore")], "relations": [located("Orla Forge", "Vellore")]},
}


@pytest.fixture
def llm() -> Iterator[tuple[FakeLLM, str]]:
    fake = FakeLLM()
    fake.responder = responder(REPLIES)
    with serving(fake) as url:
        yield fake, url


def extracted_then_fresh(path: Path, url: str, fresh: list[Document], **settings: object) -> HopGraph:
    """A store extracted by the model, then given documents the extraction has not read."""
    hg = HopGraph(str(path), Settings(llm_url=url, llm_model=MODEL, **settings), embedder=BagOfWordsEmbedder())
    hg.index_documents(DOCS)
    hg.extract(gleanings=0)
    hg.index_documents(fresh, replace_sources=False)
    return hg


def chunk_of(hg: HopGraph, title: str) -> int:
    table = hg.store.chunk_table()
    return next(int(c) for c, d in zip(table.ids, table.doc_ids, strict=True) if table.titles[int(d)] == title)


def answer_prompts(fake: FakeLLM) -> list[str]:
    return [b["messages"][1]["content"] for b in fake.bodies if b["messages"][0]["content"] == answer_prompt.SYSTEM]


def test_a_local_question_about_a_fresh_document_extracts_it_live_and_answers_from_its_facts(tmp_path, llm):
    fake, url = llm
    with extracted_then_fresh(tmp_path / "live.db", url, [FRESH]) as hg:
        assert hg.knowledge_graph.find("Kestrel Castings") is None
        fake.requests.clear()
        asked = hg.ask("Where is the casting line of Kestrel Castings now?", mode="local")
        fresh = chunk_of(hg, FRESH.title)
        assert extraction_texts(fake.bodies) == [FRESH.text]  # only the unread top hit
        assert asked.mode == "local" and asked.note == "extracted 1 chunk(s) live"
        assert asked.details["live_extraction"] == {"chunks": 1, "failed": 0, "left": 0, "problem": ""}
        assert "Kestrel Castings —LOCATED_IN→ Ranipet" in answer_prompts(fake)[0]  # the walk used the live fact
        assert fresh in asked.citations and asked.hits[0].chunk_id == fresh
        assert hg.store.unextracted(EXTRACTOR, [fresh]) == []  # stored, not thrown away
        assert not hg.store.graph_behind_facts()

        again = hg.ask("Where is the casting line of Kestrel Castings now?", mode="local")
        assert extraction_texts(fake.bodies) == [FRESH.text]  # no second extraction call
        assert again.note == "" and "live_extraction" not in again.details
        assert again.citations == asked.citations


def test_a_paths_question_reaches_a_fresh_fact_extracted_live(tmp_path, llm):
    fake, url = llm
    with extracted_then_fresh(tmp_path / "live.db", url, [FRESH]) as hg:
        fake.requests.clear()
        asked = hg.ask("Which plants are in Ranipet?", mode="paths")
        assert extraction_texts(fake.bodies) == [FRESH.text]
        assert asked.mode == "paths" and asked.note == "extracted 1 chunk(s) live"
        assert [[(h.source, h.relation, h.target) for h in path] for path in asked.paths] == [
            [("Kestrel Castings", "LOCATED_IN", "Ranipet")]]


def test_live_extraction_reads_at_most_the_configured_chunks_and_says_what_waits(tmp_path, llm):
    fake, url = llm
    with extracted_then_fresh(tmp_path / "live.db", url, [FRESH, LATER], live_extract_chunks=1) as hg:
        fake.requests.clear()
        asked = hg.ask("Which casting line or press shop has moved?", mode="local")
        assert len(extraction_texts(fake.bodies)) == 1
        assert asked.details["live_extraction"]["left"] == 1
        assert asked.note.startswith("extracted 1 chunk(s) live, 1 more wait for the backfill")
        assert len(hg.store.unextracted(EXTRACTOR, [chunk_of(hg, FRESH.title), chunk_of(hg, LATER.title)])) == 1


def test_no_live_extraction_when_it_is_switched_off(tmp_path, llm):
    fake, url = llm
    with extracted_then_fresh(tmp_path / "live.db", url, [FRESH], live_extract_chunks=0) as hg:
        fake.requests.clear()
        asked = hg.ask("Where is the casting line of Kestrel Castings now?", mode="local")
        assert extraction_texts(fake.bodies) == [] and "live_extraction" not in asked.details


def test_no_live_extraction_of_a_graph_the_model_did_not_extract(tmp_path, llm):
    fake, url = llm
    settings = Settings(llm_url=url, llm_model=MODEL)
    with HopGraph(str(tmp_path / "concepts.db"), settings, embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents([*DOCS, FRESH])
        hg.extract_concepts()  # a no-LLM graph: asking does not turn it into an LLM one
        asked = hg.ask("Where is the casting line of Kestrel Castings now?", mode="local")
        assert extraction_texts(fake.bodies) == [] and "live_extraction" not in asked.details
        assert hg.store.extractors() == [e for e in hg.store.extractors() if not e.startswith("llm:")]


@pytest.mark.parametrize(("mode", "question"), [("local", "Where is the casting line of Kestrel Castings now?"),
                                                ("paths", "What happened to the press shop lately?")])
def test_live_extraction_and_the_walk_share_one_hybrid_search(tmp_path, llm, monkeypatch, mode, question):
    """With an LLM, live extraction reads the question's top hybrid hits and the walk (local) or its
    fall-open (paths, here: the question names no entity) uses the same search: it runs once."""
    from spies import count_calls

    import hopgraph.retrieval.methods

    _, url = llm
    with extracted_then_fresh(tmp_path / "live.db", url, [FRESH, LATER]) as hg:
        searches = count_calls(monkeypatch, hopgraph.retrieval.methods.run_method)
        asked = hg.ask(question, mode=mode)
        assert asked.note.startswith("extracted ")  # live extraction ran
        if mode == "paths":
            assert "fell open" in asked.note and asked.retrieval.method == "hybrid"
        assert [args[2] for args in searches] == ["hybrid"]
