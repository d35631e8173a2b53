"""What every backend counts for `hopgraph stats`: rows of each kind, the run log, bytes on disk."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.records.documents import Document
from hopgraph.records.stats import StoreCounts

DOCS = [Document("Anvaya Foundry", "Anvaya Foundry supplies Corvane Brake Systems.", "kg"),
        Document("Corvane Brake Systems", "Corvane Brake Systems supplies Zephyra Motors since 2022.", "kg"),
        Document("Zephyra Motors", "Zephyra Motors is based in Pune.", "kg")]


@pytest.fixture
def hg(store_location: str) -> Iterator[HopGraph]:
    graph = HopGraph(store_location, Settings(), embedder=BagOfWordsEmbedder())
    yield graph
    graph.close()


def test_a_new_store_counts_nothing_and_has_no_runs(hg: HopGraph) -> None:
    assert hg.store.counts() == StoreCounts()
    assert hg.store.recent_runs() == []


def test_counts_follow_the_documents_the_graph_and_the_communities(hg: HopGraph) -> None:
    hg.index_documents(DOCS)
    counts = hg.store.counts()
    stored = hg.store.name_graph()
    assert (counts.documents, counts.chunks) == (3, len(hg.store.chunk_table()))
    assert (counts.names, counts.links) == (len(stored.names), len(stored.links)) and counts.links > 0
    assert counts.names_filtered == sum(1 for n in stored.names if n.filtered)
    hg.extract_without_llm()
    hg.communities()
    counts = hg.store.counts()
    graph, tree = hg.knowledge_graph, hg.communities()
    assert (counts.entities, counts.relations) == (len(graph.entities), len(graph.relations)) and counts.relations
    superseded = sum(r.superseded_by is not None for r in graph.relations)
    assert counts.superseded_relations == superseded
    assert counts.extracted_chunks == counts.chunks
    assert (counts.communities, counts.community_levels) == (len(tree), tree.levels)
    hg.index_documents(DOCS[:2])  # a list of documents replaces the index: the third is withdrawn
    after = hg.store.counts()
    assert (after.documents, after.withdrawn_documents) == (2, 1)


def test_runs_are_listed_newest_first_with_their_index_report(hg: HopGraph) -> None:
    hg.index_documents(DOCS[:1])
    hg.index_documents(DOCS)
    newest, oldest = hg.store.recent_runs()
    assert newest.id > oldest.id and newest.command == oldest.command == "index"
    assert (oldest.stats["added"], newest.stats["added"]) == (1, 2)
    assert [run.id for run in hg.store.recent_runs(limit=1)] == [newest.id]


def test_bytes_on_disk_grow_with_the_index(hg: HopGraph) -> None:
    before = sum(hg.store.disk_bytes().values())
    hg.index_documents(DOCS + [Document(f"Filler {i}", "words " * 300, "kg") for i in range(20)])
    after = hg.store.disk_bytes()
    assert set(after) in ({"file", "wal"}, {"tables"})
    assert sum(after.values()) > before > 0
