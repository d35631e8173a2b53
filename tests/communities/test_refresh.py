"""Communities and reports through the facade and the store: built once, stored, cleared with the
graph they describe, and reports found again by content hash after an update."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import SUPPLIERS, BagOfWordsEmbedder

import hopgraph.communities.labels
from hopgraph.communities import refresh
from hopgraph.communities.labels import NGRAMS, NOUN_PHRASES
from hopgraph.communities.leiden import is_connected
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError, StoreBusy
from hopgraph.text import noun_phrases
from hopgraph.text.nlp import MODEL_PACKAGE


@pytest.fixture
def suppliers(tmp_path: Path) -> HopGraph:
    docs = tmp_path / "docs"
    shutil.copytree(SUPPLIERS / "docs", docs)
    hg = HopGraph(str(tmp_path / "s.db"), Settings(), embedder=BagOfWordsEmbedder())
    hg.index([docs])
    hg.import_triples(SUPPLIERS / "triples.csv")
    yield hg
    hg.close()


def test_communities_need_a_graph_first(tiny_graph: HopGraph) -> None:
    with pytest.raises(HopgraphError, match="hopgraph extract"):
        tiny_graph.communities()


def test_the_tree_is_stored_and_loads_back_equal(suppliers: HopGraph) -> None:
    tree = suppliers.communities()
    graph = suppliers.knowledge_graph
    assert len(tree) > 3 and all(is_connected(graph, c) for c in tree.communities)
    stored = suppliers.store.community_tree()
    assert stored is not None
    assert [(c.id, c.level, c.parent, c.entities, c.children, c.hash) for c in stored.communities] == [
        (c.id, c.level, c.parent, c.entities, c.children, c.hash) for c in tree.communities]


def test_extractive_reports_are_stored_and_reused(suppliers: HopGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    first = suppliers.reports(use_llm=False)
    tree = suppliers.communities()
    assert len(first.reports) == len(tree) and not first.failed
    chunk_ids = {int(c) for c in suppliers.search_index.table.ids}
    assert all(c in chunk_ids for r in first.reports for c in r.citations)
    monkeypatch.setattr(refresh, "extractive_reports", lambda *a, **k: pytest.fail("written again"))
    again = suppliers.reports(use_llm=False)
    assert [r.title for r in again.reports] == [r.title for r in first.reports]


def test_labels_are_stored_with_the_reports_and_computed_once(suppliers: HopGraph,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    first = suppliers.reports(use_llm=False)
    assert all(r.labels for r in first.reports)
    stored = suppliers.store.stored_reports("extractive")
    assert {h: r.labels for h, r in stored.items()} == {r.hash: r.labels for r in first.reports}
    monkeypatch.setattr(hopgraph.communities.labels, "community_labels", lambda *a, **k: pytest.fail("labelled again"))
    assert [r.labels for r in suppliers.reports(use_llm=False).reports] == [r.labels for r in first.reports]


def test_reports_stored_before_labels_existed_are_labelled_once(suppliers: HopGraph,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    labels = [r.labels for r in suppliers.reports(use_llm=False).reports]
    with suppliers.store._transaction():  # as a 0.4 store holds them: payloads without "labels"
        suppliers.store._db.execute("UPDATE community_reports SET payload = json_remove(payload, '$.labels')")
    assert all(r.labels is None for r in suppliers.store.stored_reports("extractive").values())
    monkeypatch.setattr(refresh, "extractive_reports", lambda *a, **k: pytest.fail("written again"))
    assert [r.labels for r in suppliers.reports(use_llm=False).reports] == labels
    assert all(r.labels for r in suppliers.store.stored_reports("extractive").values())


def test_labels_are_noun_phrases_parsed_once_and_old_labels_are_made_again(suppliers: HopGraph,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip(MODEL_PACKAGE)
    first = suppliers.reports(use_llm=False)
    assert {r.labelled_by for r in first.reports} == {NOUN_PHRASES}
    with suppliers.store._transaction():  # as a 0.4 store holds them: labels made from n-grams
        suppliers.store._db.execute("UPDATE community_reports SET payload = json_set(payload, '$.labelled_by', ?)",
                                    (NGRAMS,))
    monkeypatch.setattr(refresh, "extractive_reports", lambda *a, **k: pytest.fail("written again"))
    monkeypatch.setattr(noun_phrases, "noun_phrases", lambda *a, **k: pytest.fail("parsed again"))
    assert [r.labels for r in suppliers.reports(use_llm=False).reports] == [r.labels for r in first.reports]
    assert {r.labelled_by for r in suppliers.store.stored_reports("extractive").values()} == {NOUN_PHRASES}


def test_an_update_rebuilds_the_tree_and_keeps_the_reports_of_unchanged_communities(suppliers: HopGraph,
                                                                                   tmp_path: Path) -> None:
    before = {c.hash for c in suppliers.communities().communities}
    suppliers.reports(use_llm=False)
    changed = tmp_path / "docs" / "05_sreevar_board_announcement.md"
    changed.write_text("# Sreevar board\n\nThe board met and adjourned.\n", encoding="utf-8")
    suppliers.index([tmp_path / "docs"])  # its chunk is replaced: relations citing the old one leave
    assert suppliers.store.community_tree() is None  # the old tree named entity ids that are gone
    after = {c.hash for c in suppliers.communities().communities}
    assert after != before and after & before  # some communities changed, some did not
    stored = suppliers.store.stored_reports("extractive")
    assert before <= set(stored)  # the earlier reports stay in the store, found by hash
    run = suppliers.reports(use_llm=False)
    kept = {r.hash for r in run.reports if r.hash in before and stored[r.hash].summary == r.summary}
    # Only changed communities are written: every report of an unchanged one that says the same is reused,
    # and the reports of communities that are gone leave the store.
    assert 0 < run.reused == len(kept) < len(run.reports)
    assert run.dropped == len(before - after) > 0
    assert set(suppliers.store.stored_reports("extractive")) == after
    assert suppliers.reports(use_llm=False).dropped == 0  # said once, not again on the next run


def test_communities_without_relations_say_what_to_run(tmp_path: Path) -> None:
    with HopGraph(str(tmp_path / "empty.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg, \
            pytest.raises(HopgraphError, match="no relations"):
        hg.reports()


HOLD_LOCK = """
import sys, time
from hopgraph.store.sqlite import SQLiteStore
store = SQLiteStore(sys.argv[1])
with store._transaction():
    print("locked", flush=True)
    time.sleep(60)
"""


def test_a_question_about_the_whole_collection_is_answered_while_another_command_writes(suppliers: HopGraph) -> None:
    path = suppliers.store.location
    suppliers.close()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, path], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with HopGraph(path, Settings(), embedder=BagOfWordsEmbedder()) as hg:
            started = time.perf_counter()
            answer = hg.ask("What are the main themes across these suppliers?", mode="global")
            assert time.perf_counter() - started < 20  # it did not wait out the 30 s lock timeout
            assert answer.mode == "global" and answer.text
            assert hg.store.community_tree() is None  # made for the question, not stored under the writer
            with pytest.raises(StoreBusy):
                hg.communities(rebuild=True)  # a command that must store still waits, then names the writer
    finally:
        holder.kill()
        holder.wait()
    with HopGraph(path, Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.ask("What are the main themes across these suppliers?", mode="global")
        assert hg.store.community_tree() is not None and hg.store.stored_reports("extractive")
