"""Crash safety: a real child process is killed with SIGKILL during embedding, inside the index run's
final write, and during extraction; the next run resumes and ends where an uninterrupted run ends —
the same store row for row (store_state), with no embedding paid twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from store_state import store_state
from testkit import REPO, BagOfWordsEmbedder

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.questions import pooled_corpus

RECORDS = 6  # 60 paragraphs: several batches of 16 vectors and of 8 extracted chunks


@pytest.fixture(scope="module")
def docs():
    records = json.loads(sample_path().read_text(encoding="utf-8"))[:RECORDS]
    return pooled_corpus(records, "eval:crash")


@pytest.fixture(scope="module")
def uninterrupted(docs, tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("whole") / "whole.db"
    with HopGraph(str(path), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.index_documents(docs)
        hg.extract_without_llm()
        return store_state(hg.store, BagOfWordsEmbedder.name)


def killed_run(store: Path, docs, where: str) -> None:
    docs_file = store.with_suffix(".json")
    docs_file.write_text(json.dumps([asdict(d) for d in docs]), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "tests" / "support")])}
    child = subprocess.run([sys.executable, str(REPO / "tests" / "support" / "crash_run.py"), str(store),
                            str(docs_file), where], env=env, capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr


@pytest.mark.parametrize("where", ["embed", "apply", "extract"])
def test_a_killed_run_resumes_to_the_store_an_uninterrupted_run_makes(where, docs, uninterrupted, tmp_path):
    store = tmp_path / "crashed.db"
    killed_run(store, docs, where)
    embedder = BagOfWordsEmbedder()
    with HopGraph(str(store), Settings(), embedder=embedder, quiet=True) as hg:
        if where == "apply":  # killed before the commit: no document, but the vectors paid for stay
            assert hg.store.active_documents() == {}
            assert len(hg.store.cached_vectors(_hashes(docs), embedder.name)) == len(set(_hashes(docs)))
        hg.index_documents(docs)
        if where != "embed":
            assert embedder.texts_embedded == 0  # every vector was committed before the kill
        else:
            assert 0 < embedder.texts_embedded < len(docs)  # the two committed batches are not paid again
        hg.extract_without_llm()
        assert store_state(hg.store, embedder.name) == uninterrupted


def _hashes(docs) -> list[str]:
    """The text hashes the documents' chunks will have (from a throwaway in-memory index)."""
    with HopGraph(":memory:", Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as memory:
        memory.index_documents(docs)
        return memory.store.chunk_table().text_hashes
