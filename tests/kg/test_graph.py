"""Assembling the knowledge graph: merged parallel statements, provenance, validity dates, lookups."""

from __future__ import annotations

import pytest

from hopgraph.kg.graph import assemble
from hopgraph.kg.resolution import resolve
from hopgraph.records.knowledge import ChunkFacts, Entity, KnowledgeGraph, RawEntity, RawRelation, Relation, Source

CHUNK_DOCS = {10: 1, 11: 1, 20: 2}


def supplies(source: str, target: str, date: str | None = None, until: str | None = None) -> RawRelation:
    return RawRelation(source, "SUPPLIES", target, "", "ORG", "ORG", date, until)


def chunk(chunk_id: int, *relations: RawRelation, entities: tuple[RawEntity, ...] = ()) -> ChunkFacts:
    return ChunkFacts(chunk_id, "test", list(entities), list(relations))


def build(facts: list[ChunkFacts]) -> KnowledgeGraph:
    names = [(e.name, e.type, e.description) for f in facts for e in f.entities]
    names += [(n, t, "") for f in facts for r in f.relations for n, t in ((r.source, r.source_type),
                                                                        (r.target, r.target_type))]
    return assemble(facts, resolve(names), CHUNK_DOCS)


def only_relation(graph: KnowledgeGraph) -> Relation:
    assert len(graph.relations) == 1
    return graph.relations[0]


def test_parallel_statements_in_two_chunks_merge_into_one_relation_of_weight_two():
    graph = build([chunk(10, supplies("Anvaya Foundry", "Corvane")),
                   chunk(20, supplies("Anvaya Foundry Pvt Ltd", "Corvane"))])
    relation = only_relation(graph)
    assert relation.weight == 2.0
    assert relation.sources == [Source(10, 1, None, extractor="test"), Source(20, 2, None, extractor="test")]
    assert graph.entities[relation.source].name.startswith("Anvaya Foundry")
    assert graph.entities[relation.target].name == "Corvane"


def test_the_same_statement_twice_in_one_chunk_weighs_one():
    graph = build([chunk(10, supplies("Anvaya", "Corvane"), supplies("Anvaya", "Corvane"))])
    assert only_relation(graph).weight == 1.0


def test_different_relation_types_between_the_same_ends_stay_separate():
    owns = RawRelation("Anvaya", "OWNS", "Corvane", "", "ORG", "ORG")
    graph = build([chunk(10, supplies("Anvaya", "Corvane"), owns)])
    assert sorted(r.relation for r in graph.relations) == ["OWNS", "SUPPLIES"]


def test_a_relation_whose_ends_resolve_to_one_entity_is_dropped():
    graph = build([chunk(10, supplies("Foundry F Ltd", "Foundry F"), supplies("Foundry F", "Corvane"))])
    relation = only_relation(graph)
    assert graph.entities[relation.target].name == "Corvane"


def test_a_relation_with_an_unresolved_end_is_dropped():
    facts = [chunk(10, supplies("Anvaya", "Corvane"))]
    graph = assemble(facts, resolve([("Anvaya", "ORG", "")]), CHUNK_DOCS)
    assert graph.relations == []


def test_valid_from_is_the_earliest_date_and_valid_until_the_latest_end():
    graph = build([chunk(10, supplies("Anvaya", "Corvane", "2021-05", "2023")),
                   chunk(11, supplies("Anvaya", "Corvane", "2019-01-01", "2022-12-31"))])
    relation = only_relation(graph)
    assert (relation.valid_from, relation.valid_until) == ("2019-01-01", "2023")
    assert [s.date for s in relation.sources] == ["2021-05", "2019-01-01"]


def test_an_open_ended_statement_leaves_valid_until_open():
    graph = build([chunk(10, supplies("Anvaya", "Corvane", "2021-05", "2023")),
                   chunk(20, supplies("Anvaya", "Corvane", "2020"))])
    relation = only_relation(graph)
    assert (relation.valid_from, relation.valid_until) == ("2020", None)
    assert relation.holds_on("2030-01-01") and not relation.holds_on("2019-06-01")


def test_a_relation_renewed_after_it_ended_holds_after_the_renewal():
    graph = build([chunk(10, supplies("Anvayam", "Duravance", "2016-01-01", "2022-12-31")),
                   chunk(20, supplies("Anvayam", "Duravance", "2024-03-01"))])
    assert only_relation(graph).holds_on("2025-01-01")


def test_an_undated_relation_has_no_validity_bounds():
    relation = only_relation(build([chunk(10, supplies("Anvaya", "Corvane"))]))
    assert (relation.valid_from, relation.valid_until) == (None, None)
    assert relation.holds_on("1900-01-01") and relation.holds_on("2999-12-31")


@pytest.mark.parametrize(("day", "holds"), [
    (None, True), ("2018-12-31", False), ("2019-01-01", True), ("2021-06-15", True), ("2022-12-31", True),
    ("2023-01-01", False),
])
def test_holds_on_is_inclusive_of_both_bounds(day, holds):
    relation = Relation(1, 1, "SUPPLIES", 2, valid_from="2019-01-01", valid_until="2022-12-31")
    assert relation.holds_on(day) is holds


def test_holds_on_with_only_a_start_is_open_ended():
    relation = Relation(1, 1, "SUPPLIES", 2, valid_from="2020")
    assert not relation.holds_on("2019-12-31")
    assert relation.holds_on("2020-03-01") and relation.holds_on("2099-01-01")


def test_entities_are_the_resolved_clusters_with_aliases_and_the_chunks_that_mention_them():
    graph = build([chunk(10, supplies("Anvaya Foundry Pvt Ltd", "Corvane")),
                   chunk(20, entities=(RawEntity("Anvaya Foundry", "ORG", "a foundry in Hosur"),))])
    anvaya = graph.find("Anvaya Foundry")
    assert anvaya is not None
    assert anvaya.chunks == {10, 20}
    assert set(anvaya.aliases) | {anvaya.name} == {"Anvaya Foundry", "Anvaya Foundry Pvt Ltd"}
    assert anvaya.name not in anvaya.aliases
    assert anvaya.description == "a foundry in Hosur"
    assert graph.find("Corvane").chunks == {10}


def test_find_and_by_name_ignore_case_and_include_aliases():
    graph = KnowledgeGraph({1: Entity(1, "Corvane Brake Systems", "ORG", aliases=["CBS", "Corvane Brakes"]),
                            2: Entity(2, "Zephyra Motors", "ORG")})
    names = graph.by_name()
    assert names["corvane brake systems"] == names["cbs"] == names["corvane brakes"] == 1
    assert names["zephyra motors"] == 2
    assert graph.find("ZEPHYRA MOTORS").id == 2
    assert graph.find("cbs").id == 1
    assert graph.find("Nobody") is None


def test_by_name_keeps_the_first_entity_on_a_clash():
    graph = KnowledgeGraph({1: Entity(1, "Jordan", "PERSON"), 2: Entity(2, "Jordan", "LOCATION")})
    assert graph.by_name()["jordan"] == 1


def test_in_and_out_edge_indexes_point_at_relation_positions():
    graph = build([chunk(10, supplies("Anvaya", "Corvane"), supplies("Corvane", "Zephyra")),
                   chunk(20, supplies("Ferrosyn", "Corvane"))])
    corvane = graph.find("Corvane").id
    out = [graph.relations[p] for p in graph.out_edges[corvane]]
    into = [graph.relations[p] for p in graph.in_edges[corvane]]
    assert [graph.entities[r.target].name for r in out] == ["Zephyra"]
    assert sorted(graph.entities[r.source].name for r in into) == ["Anvaya", "Ferrosyn"]
    assert graph.out_edges[graph.find("Zephyra").id] == []


def test_index_rebuilds_the_edge_lists_after_relations_change():
    graph = KnowledgeGraph({1: Entity(1, "A", "ORG"), 2: Entity(2, "B", "ORG")})
    graph.relations.append(Relation(1, 1, "SUPPLIES", 2, sources=[Source(5, 1)]))
    graph.index()
    assert graph.out_edges[1] == [0] and graph.in_edges[2] == [0]
