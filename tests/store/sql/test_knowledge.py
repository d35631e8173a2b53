"""The knowledge tables of every backend: facts, failures, the graph, merge reviews, and cascades."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.kg.build import build_graph, mentions_of
from hopgraph.kg.graph import assemble
from hopgraph.kg.resolution import resolve
from hopgraph.records.documents import Document
from hopgraph.records.knowledge import (
    ChunkFacts,
    ChunkText,
    ExtractionFailure,
    KnowledgeGraph,
    MergeCandidate,
    RawEntity,
    RawRelation,
)
from hopgraph.store import Store
from hopgraph.store.sql.tables import GRAPH_GENERATION

DOCS = [Document("Doc A", "Anvaya Foundry supplies Corvane Brake Systems.", "kg"),
        Document("Doc B", "Corvane Brake Systems supplies Zephyra Motors since 2022.", "kg"),
        Document("Doc C", "Zephyra Motors is based in Pune.", "kg")]


@pytest.fixture
def hg(store_location: str) -> Iterator[HopGraph]:
    graph = HopGraph(store_location, Settings(), embedder=BagOfWordsEmbedder())
    graph.index_documents(DOCS)
    yield graph
    graph.close()


def chunks(store: Store) -> dict[str, int]:
    table = store.chunk_table()
    return {table.titles[int(d)]: int(c) for c, d in zip(table.ids, table.doc_ids, strict=True)}


def supply_facts(store: Store, extractor: str = "llm:m") -> list[ChunkFacts]:
    ids = chunks(store)
    return [
        ChunkFacts(ids["Doc A"], extractor,
                   [RawEntity("Anvaya Foundry", "ORG", "a foundry"), RawEntity("Corvane Brake Systems", "ORG")],
                   [RawRelation("Anvaya Foundry", "SUPPLIES", "Corvane Brake Systems", "castings", "ORG", "ORG")],
                   ["entity 'x': unknown type 'Y'"]),
        ChunkFacts(ids["Doc B"], extractor,
                   [RawEntity("Corvane Brake Systems", "ORG"), RawEntity("Zephyra Motors", "ORG")],
                   [RawRelation("Corvane Brake Systems", "SUPPLIES", "Zephyra Motors", "", "ORG", "ORG", "2022",
                                "2024-06")]),
    ]


def graph_of(store: Store) -> KnowledgeGraph:
    facts = store.load_facts()
    return assemble(facts, resolve(mentions_of(facts)), store.chunk_docs())


def edges(graph: KnowledgeGraph) -> set[tuple[str, str, str]]:
    return {(graph.entities[r.source].name, r.relation, graph.entities[r.target].name) for r in graph.relations}


# --- facts -------------------------------------------------------------------------------------------


def test_saved_facts_load_back_equal(hg):
    facts = supply_facts(hg.store)
    hg.store.save_facts(facts)
    assert hg.store.load_facts() == facts
    assert hg.store.has_facts()


def test_a_new_store_has_no_facts(hg):
    assert not hg.store.has_facts() and hg.store.load_facts() == []


def test_load_facts_filters_by_extractor(hg):
    hg.store.save_facts(supply_facts(hg.store, "llm:m") + supply_facts(hg.store, "nlp")[:1])
    assert {f.extractor for f in hg.store.load_facts(["nlp"])} == {"nlp"}
    assert len(hg.store.load_facts(["nlp"])) == 1
    assert len(hg.store.load_facts()) == 3


def test_saving_facts_of_a_chunk_again_replaces_them(hg):
    first = supply_facts(hg.store)[0]
    hg.store.save_facts([first])
    again = ChunkFacts(first.chunk_id, first.extractor, [RawEntity("Anvaya Foundry", "ORG")])
    hg.store.save_facts([again])
    assert hg.store.load_facts() == [again]


def test_pending_chunks_are_the_chunks_without_facts_from_that_extractor(hg):
    ids = chunks(hg.store)
    hg.store.save_facts(supply_facts(hg.store, "llm:m"))
    assert hg.store.pending_chunks("llm:m") == [ChunkText(ids["Doc C"], DOCS[2].text)]
    assert [c.chunk_id for c in hg.store.pending_chunks("llm:other")] == sorted(ids.values())


def test_pending_chunks_leave_out_withdrawn_documents(hg):
    hg.index_documents(DOCS[:2])  # Doc C is gone from its source: withdrawn
    assert "Doc C" not in {c.text for c in hg.store.pending_chunks("llm:m")}
    assert len(hg.store.pending_chunks("llm:m")) == 2


def test_replace_facts_replaces_only_that_extractors_facts(hg):
    hg.store.save_facts(supply_facts(hg.store, "triples:a.csv") + supply_facts(hg.store, "llm:m"))
    replacement = [ChunkFacts(chunks(hg.store)["Doc C"], "triples:a.csv", [RawEntity("Pune", "LOCATION")])]
    hg.store.replace_facts("triples:a.csv", replacement)
    assert hg.store.load_facts(["triples:a.csv"]) == replacement
    assert hg.store.load_facts(["llm:m"]) == supply_facts(hg.store, "llm:m")


def test_failures_are_recorded_per_chunk_and_cleared_when_facts_arrive(hg):
    ids = chunks(hg.store)
    failed = [ExtractionFailure(ids["Doc A"], "timed out"), ExtractionFailure(ids["Doc B"], "bad JSON")]
    hg.store.record_failures(failed, "llm:m")
    assert hg.store.failures("llm:m") == sorted(failed, key=lambda f: f.chunk_id)
    assert hg.store.failures("llm:other") == []
    assert hg.store.load_facts() == []  # a failure writes no facts
    assert len(hg.store.pending_chunks("llm:m")) == 3  # and the chunk stays pending
    hg.store.save_facts(supply_facts(hg.store)[:1])
    assert hg.store.failures("llm:m") == [ExtractionFailure(ids["Doc B"], "bad JSON")]


def test_recording_a_failure_again_keeps_the_latest_error(hg):
    chunk = chunks(hg.store)["Doc A"]
    hg.store.record_failures([ExtractionFailure(chunk, "timed out")], "llm:m")
    hg.store.record_failures([ExtractionFailure(chunk, "HTTP 503")], "llm:m")
    assert hg.store.failures("llm:m") == [ExtractionFailure(chunk, "HTTP 503")]


# --- the graph ---------------------------------------------------------------------------------------


def test_the_stored_knowledge_graph_loads_back_equal(hg):
    hg.store.save_facts(supply_facts(hg.store))
    graph = graph_of(hg.store)
    hg.store.replace_knowledge_graph(graph, [])
    loaded = hg.store.knowledge_graph()
    assert loaded == graph
    corvane = loaded.find("Corvane Brake Systems").id
    assert [loaded.relations[p].relation for p in loaded.in_edges[corvane]] == ["SUPPLIES"]  # indexed on load
    dated = next(r for r in loaded.relations if r.valid_from)
    assert (dated.valid_from, dated.valid_until, dated.sources[0].date) == ("2022", "2024-06", "2022")


def test_a_graph_stored_with_a_date_no_calendar_holds_loads_it_as_undated(hg):
    """A graph built before dates were checked (an LLM's "2024-13-45" kept as it was) still answers:
    the date reads as none, never as an error in the middle of a query."""
    hg.store.save_facts(supply_facts(hg.store))
    graph = graph_of(hg.store)
    relation = graph.relations[0]
    relation.valid_from, relation.valid_until = "2024-13-45", "0000-01-01"
    relation.sources[0] = replace(relation.sources[0], date="2024-13-45", until="0000-01-01")
    hg.store.replace_knowledge_graph(graph, [])
    loaded = hg.store.knowledge_graph().relations[0]
    assert (loaded.valid_from, loaded.valid_until, loaded.sources[0].date, loaded.sources[0].until) == (None,) * 4
    assert loaded.holds_on("2024-06-01")


def test_replacing_the_graph_drops_the_previous_one(hg):
    hg.store.save_facts(supply_facts(hg.store))
    hg.store.replace_knowledge_graph(graph_of(hg.store), [])
    hg.store.replace_facts("llm:m", supply_facts(hg.store)[1:])
    hg.store.replace_knowledge_graph(graph_of(hg.store), [])
    assert edges(hg.store.knowledge_graph()) == {("Corvane Brake Systems", "SUPPLIES", "Zephyra Motors")}
    assert len(hg.store.knowledge_graph().entities) == 2


def test_every_graph_replacement_writes_a_fresh_graph_generation(hg):
    # how `hopgraph serve` sees a rebuild another process made (serve/shared_graph.py)
    assert GRAPH_GENERATION not in hg.store.meta()
    hg.store.save_facts(supply_facts(hg.store))
    hg.store.replace_knowledge_graph(graph_of(hg.store), [])
    first = hg.store.meta()[GRAPH_GENERATION]
    hg.store.replace_knowledge_graph(graph_of(hg.store), [])
    assert first and hg.store.meta()[GRAPH_GENERATION] != first


def test_an_empty_store_has_an_empty_graph(hg):
    assert hg.store.knowledge_graph() == KnowledgeGraph()


# --- merge reviews -----------------------------------------------------------------------------------

CANDIDATES = [MergeCandidate("Corvane Brakes", "Corvane Brake Systems", "ORG", 0.88),
              MergeCandidate("Zephyra", "Zephyra Motors", "ORG", 0.91)]


def test_merge_reviews_are_pending_best_score_first(hg):
    hg.store.replace_knowledge_graph(KnowledgeGraph(), CANDIDATES)
    rows = hg.store.merge_reviews()
    assert [(r.a, r.b, r.type, r.score, r.status) for r in rows] == [
        ("Zephyra", "Zephyra Motors", "ORG", 0.91, "pending"),
        ("Corvane Brakes", "Corvane Brake Systems", "ORG", 0.88, "pending")]
    assert hg.store.merge_decisions() == {}


def test_decisions_are_recorded_and_leave_the_pending_list(hg):
    hg.store.replace_knowledge_graph(KnowledgeGraph(), CANDIDATES)
    by_pair = {(r.a, r.b): r.id for r in hg.store.merge_reviews()}
    assert hg.store.decide_merge(by_pair[("Zephyra", "Zephyra Motors")], accept=True)
    assert hg.store.decide_merge(by_pair[("Corvane Brakes", "Corvane Brake Systems")], accept=False)
    assert hg.store.merge_reviews() == []
    assert {r.status for r in hg.store.merge_reviews(status=None)} == {"accepted", "rejected"}
    assert hg.store.merge_decisions() == {("Zephyra", "Zephyra Motors"): True,
                                          ("Corvane Brakes", "Corvane Brake Systems"): False}


def test_deciding_an_unknown_review_reports_false(hg):
    assert hg.store.decide_merge(999, accept=True) is False


def test_a_decided_pair_proposed_again_keeps_its_decision(hg):
    hg.store.replace_knowledge_graph(KnowledgeGraph(), CANDIDATES[:1])
    review_id = hg.store.merge_reviews()[0].id
    hg.store.decide_merge(review_id, accept=False)
    hg.store.replace_knowledge_graph(KnowledgeGraph(), CANDIDATES)
    assert [r.a for r in hg.store.merge_reviews()] == ["Zephyra"]
    assert hg.store.merge_decisions() == {("Corvane Brakes", "Corvane Brake Systems"): False}


# --- cascades ----------------------------------------------------------------------------------------


def test_reindexing_a_changed_document_deletes_its_chunks_facts_and_the_rebuilt_graph_loses_them(hg):
    hg.store.save_facts(supply_facts(hg.store))
    build_graph(hg.store, None, hg.settings)
    old_chunk = chunks(hg.store)["Doc A"]
    changed = Document("Doc A", "Anvaya Foundry stopped supplying anyone in 2024.", "kg")
    hg.index_documents([changed, *DOCS[1:]])
    assert old_chunk not in {f.chunk_id for f in hg.store.load_facts()}
    assert len(hg.store.load_facts()) == 1
    assert edges(hg.store.knowledge_graph()) == {("Corvane Brake Systems", "SUPPLIES", "Zephyra Motors")}
    assert changed.text in {c.text for c in hg.store.pending_chunks("llm:m")}  # waits for extraction


def test_deleting_a_chunk_deletes_its_facts_failures_and_graph_sources(hg):
    hg.store.save_facts(supply_facts(hg.store))
    hg.store.record_failures([ExtractionFailure(chunks(hg.store)["Doc C"], "timed out")], "llm:m")
    hg.store.replace_knowledge_graph(graph_of(hg.store), [])
    db = hg.store._db
    db.execute("DELETE FROM chunks")
    left = {table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("facts", "extraction_failures", "entity_sources", "relation_sources")}
    assert left == {"facts": 0, "extraction_failures": 0, "entity_sources": 0, "relation_sources": 0}


def test_reindexing_the_only_document_with_facts_drops_its_relations(hg):
    hg.store.save_facts(supply_facts(hg.store)[:1])
    hg.build_graph()
    hg.index_documents([Document("Doc A", "Anvaya Foundry stopped supplying anyone in 2024.", "kg"), *DOCS[1:]])
    assert hg.store.knowledge_graph().relations == []


def test_unextracted_keeps_the_given_order_and_drops_extracted_and_withdrawn_chunks(hg):
    ids = chunks(hg.store)
    hg.store.save_facts([ChunkFacts(ids["Doc B"], "llm:m")])  # a reply that named nothing still counts
    hg.remove([next(str(d) for d, title in hg.store.chunk_table().titles.items() if title == "Doc A")])
    asked = [ids["Doc C"], ids["Doc B"], ids["Doc A"], ids["Doc C"], 999_999]
    assert hg.store.unextracted("llm:m", asked) == [ChunkText(ids["Doc C"], DOCS[2].text)]
    assert hg.store.unextracted("llm:other", [ids["Doc B"]]) == [ChunkText(ids["Doc B"], DOCS[1].text)]
    assert hg.store.unextracted("llm:m", []) == []


def test_facts_written_after_the_graph_mark_it_behind_until_the_next_graph_replaces_it(hg):
    store = hg.store
    assert not store.graph_behind_facts()
    store.save_facts([])  # nothing written: nothing changed
    store.drop_facts([])
    assert not store.graph_behind_facts()
    store.save_facts(supply_facts(store)[:1])
    assert store.graph_behind_facts()
    build_graph(store, None, Settings())
    assert not store.graph_behind_facts()
    store.drop_facts(["llm:m"])
    assert store.graph_behind_facts()
