"""A living index, compared row for row (store_state) with one built from scratch: adding documents
in two runs, removing a tenth of them (vectors included), and reading while an index run writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from store_state import store_state
from testkit import REPO, BagOfWordsEmbedder

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.questions import pooled_corpus

RECORDS = 6  # 60 paragraphs of the bundled HotpotQA sample, with their name links


@pytest.fixture(scope="module")
def docs():
    return pooled_corpus(json.loads(sample_path().read_text(encoding="utf-8"))[:RECORDS], "eval:living")


def fresh_state(path: Path, docs, all_vectors: bool = False) -> dict:
    with HopGraph(str(path), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.index_documents(docs)
        hg.extract_without_llm()
        return store_state(hg.store, all_vectors=all_vectors)


@pytest.fixture(params=["sqlite", "postgres"])
def location(request, tmp_path) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgres" else str(tmp_path / "living.db")


def test_adding_the_second_half_equals_indexing_everything_at_once(docs, location, tmp_path):
    half = len(docs) // 2
    with HopGraph(location, Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.index_documents(docs[:half])
        hg.extract_without_llm()
        hg.index_documents(docs)  # the same source: the first half unchanged, the second half new
        hg.extract_without_llm()
        incremental = store_state(hg.store)
    assert incremental == fresh_state(tmp_path / "whole.db", docs)
    assert incremental["links"] and incremental["relations"]  # something to compare


def test_removing_a_tenth_equals_never_adding_it(docs, location, tmp_path):
    removed = docs[::10]
    kept = [d for d in docs if d not in removed]
    with HopGraph(location, Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.index_documents(docs)
        hg.extract_without_llm()
        ids = [str(d.id) for d in hg.store.active_documents().values() if d.title in {r.title for r in removed}]
        hg.remove(ids)
        hg.extract_without_llm()  # rebuilds the graph from the facts that remain
        after = store_state(hg.store, all_vectors=True)
    assert after == fresh_state(tmp_path / "kept.db", kept, all_vectors=True)  # the removed texts' vectors too
    gone = {d.title for d in removed}
    assert not any(link[0][0] in gone or link[1][0] in gone for link in after["links"])
    assert not any(chunk[0] in gone for rel in after["relations"] for chunk in rel[3])


READER = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {support!r})
from testkit import BagOfWordsEmbedder
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
seen = []


def read():
    with HopGraph({store!r}, Settings(), embedder=BagOfWordsEmbedder(), quiet=True, create=False) as hg:
        asked = hg.ask("Who directed the film?", mode="search", method="hybrid+names+links")
        cited = all(c in asked.sources for c in asked.citations)  # every citation names a chunk that is there
        counts = hg.store.counts()  # documents and chunks in one statement: one state of the store
        seen.append([time.time(), counts.documents, counts.chunks, len(asked.hits), bool(asked.text) and cited])


read()  # one answer from the old index before the test starts the write, however slow the machine
print("reading", flush=True)
while not Path({stop!r}).exists() or len(seen) < 5:  # until the test says the write is over
    read()
print(json.dumps(seen))
"""


class SlowEmbedder(BagOfWordsEmbedder):
    """Embeds as the tests' embedder does, slowly, so the index run lasts while the reader asks."""

    def embed(self, texts, progress=None):
        time.sleep(0.01 * len(texts))
        return super().embed(texts, progress)


def test_questions_are_answered_from_the_old_or_the_new_index_while_it_is_written(docs, tmp_path):
    store, stop = tmp_path / "busy.db", tmp_path / "written"
    half = len(docs) // 2
    with HopGraph(str(store), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.index_documents(docs[:half])
        before = (len(hg.store.active_documents()), len(hg.store.chunk_table()))
    script = READER.format(support=str(REPO / "tests" / "support"), store=str(store), stop=str(stop))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    reader = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "reading"
        time.sleep(1.0)  # the reader is asking before the write starts
        started = time.time()
        with HopGraph(str(store), Settings(), embedder=SlowEmbedder(), quiet=True) as hg:
            hg.index_documents(docs)
            after = (len(hg.store.active_documents()), len(hg.store.chunk_table()))
        written = time.time()
        time.sleep(1.0)  # and after it ends
    finally:
        stop.touch()
    out, err = reader.communicate(timeout=300)
    assert reader.returncode == 0, err  # zero failed reads
    seen = json.loads(out)
    assert all(hits == 5 and answered for *_, hits, answered in seen)  # whole answers, every citation there
    assert {(documents, chunks) for _, documents, chunks, *_ in seen} == {before, after}  # never a mix
    assert any(started <= at <= written for at, *_ in seen)  # some questions were asked during the write
