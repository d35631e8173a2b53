"""Crash safety: a real child process is killed with SIGKILL during embedding, inside the index run's
final write (of a first run, and of one that carries facts to new chunks), during extraction, between
a `remove`'s commit and its graph rebuild, and inside the community tree's write; the next run
resumes and ends where an uninterrupted run ends — the same store row for row (store_state), with no
embedding paid twice."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from crash_run import doomed, rechunked
from store_state import store_state
from testkit import REPO, BagOfWordsEmbedder

from hopgraph.cli.demo import sample_path
from hopgraph.communities.incremental import PARTITION_KEY
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.eval.questions import pooled_corpus

RECORDS = 6  # 60 paragraphs: several batches of 16 vectors and of 8 extracted chunks


@pytest.fixture(scope="module")
def docs():
    records = json.loads(sample_path().read_text(encoding="utf-8"))[:RECORDS]
    return pooled_corpus(records, "eval:crash")


@pytest.fixture(scope="module")
def extracted(docs, tmp_path_factory) -> Path:
    """An uninterrupted run, and the store the `remove` and `communities` runs start from: indexed,
    with the no-LLM graph."""
    path = tmp_path_factory.mktemp("extracted") / "extracted.db"
    with HopGraph(str(path), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.index_documents(docs)
        hg.extract_without_llm()
    return path


@pytest.fixture(scope="module")
def uninterrupted(extracted) -> dict:
    with HopGraph(str(extracted), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
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
        hg.index_documents(docs)  # after `extract`, it also rebuilds the graph the killed run left behind
        chunk_texts = set(hg.store.chunk_table().texts)
        paid = [text for text in embedder.texts if text in chunk_texts]
        if where != "embed":
            assert paid == []  # every chunk's vector was committed before the kill
        else:
            assert 0 < len(paid) < len(docs)  # the two committed batches are not paid again
        hg.extract_without_llm()
        assert store_state(hg.store, embedder.name) == uninterrupted


def _hashes(docs) -> list[str]:
    """The text hashes the documents' chunks will have (from a throwaway in-memory index)."""
    with HopGraph(":memory:", Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as memory:
        memory.index_documents(docs)
        return memory.store.chunk_table().text_hashes


def test_a_remove_killed_before_its_graph_rebuild_is_finished_by_the_next_run(docs, extracted, tmp_path):
    whole = tmp_path / "whole.db"
    shutil.copy(extracted, whole)
    with HopGraph(str(whole), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        targets = doomed(hg.store)
        hg.remove(targets)
        removed = store_state(hg.store)
    store = tmp_path / "crashed.db"
    killed_run(store, docs, "remove")
    with HopGraph(str(store), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        assert doomed(hg.store) != targets  # the withdrawal was committed …
        assert hg.store.graph_behind_facts()  # … and the store knows the graph is not rebuilt yet
        with pytest.raises(InputError, match="no indexed document"):
            hg.remove(targets)  # the user runs it again: already withdrawn, and the graph is caught up
        assert not hg.store.graph_behind_facts()
        assert store_state(hg.store) == removed
        assert all(r.sources for r in hg.store.knowledge_graph().relations)


def test_an_index_run_that_carries_facts_killed_before_its_commit_leaves_the_store_as_it_was(docs, extracted,
                                                                                                tmp_path):
    whole = tmp_path / "whole.db"
    shutil.copy(extracted, whole)
    with HopGraph(str(whole), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        before = store_state(hg.store)
        assert hg.index_documents(rechunked(docs)).facts_carried  # something to carry
        carried = store_state(hg.store, all_vectors=True)
    store = tmp_path / "crashed.db"
    killed_run(store, docs, "rechunk")
    embedder = BagOfWordsEmbedder()
    with HopGraph(str(store), Settings(), embedder=embedder, quiet=True) as hg:
        assert store_state(hg.store) == before and not hg.store.graph_behind_facts()  # facts and all
        hg.index_documents(rechunked(docs))
        assert store_state(hg.store, all_vectors=True) == carried
        assert embedder.texts == []  # the killed run's vector of the added paragraph was committed


@pytest.mark.parametrize("where", ["communities", "communities-committed"])
def test_communities_killed_around_their_commit_leave_the_tree_before_or_after(where, docs, extracted, tmp_path):
    whole = tmp_path / "whole.db"
    shutil.copy(extracted, whole)
    with HopGraph(str(whole), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.communities()
        built = community_state(hg.store)
    store = tmp_path / "crashed.db"
    killed_run(store, docs, where)
    with HopGraph(str(store), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        if where == "communities":  # before: no tree, and no partition record for --if-changed to measure from
            assert hg.store.community_tree() is None and PARTITION_KEY not in hg.store.meta()
        else:  # after: the tree and its partition record, never the one without the other
            assert community_state(hg.store) == built
        hg.communities()
        assert community_state(hg.store) == built


def community_state(store) -> tuple:
    """The tree by its members' names, and the partition record written with it."""
    graph = store.knowledge_graph()
    tree = store.community_tree()
    assert tree is not None
    members = sorted((c.level, sorted(graph.entities[e].name for e in c.entities)) for c in tree.communities)
    return members, store.meta()[PARTITION_KEY]
