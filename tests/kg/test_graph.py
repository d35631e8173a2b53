"""Assembling the knowledge graph: merged parallel statements, provenance, validity dates, lookups."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from hopgraph.kg.graph import assemble
from hopgraph.kg.resolution import resolve
from hopgraph.records import dates
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
    (None, False),  # None is today: a fact that ended in 2022 is not current
    ("2018-12-31", False), ("2019-01-01", True), ("2021-06-15", True), ("2022-12-31", True), ("2023-01-01", False),
])
def test_holds_on_is_inclusive_of_both_bounds(day, holds):
    relation = Relation(1, 1, "SUPPLIES", 2, valid_from="2019-01-01", valid_until="2022-12-31")
    assert relation.holds_on(day) is holds


def test_holds_on_with_only_a_start_is_open_ended():
    relation = Relation(1, 1, "SUPPLIES", 2, valid_from="2020")
    assert not relation.holds_on("2019-12-31")
    assert relation.holds_on("2020-03-01") and relation.holds_on("2099-01-01")


def days_from_today(days: int) -> str:
    """A day relative to the real clock, so these tests mean the same whenever they run."""
    return (date.today() + timedelta(days=days)).isoformat()


@pytest.mark.parametrize(("valid_from", "valid_until", "current"), [
    (None, days_from_today(-1), False),  # ended yesterday
    (None, days_from_today(0), True),  # ends today: inclusive
    ("2019", days_from_today(365), True),  # ends next year: still current
    (days_from_today(30), None, False),  # begins next month
    (None, None, True),
])
def test_without_a_date_a_relation_holds_today(valid_from, valid_until, current):
    relation = Relation(1, 1, "OWNS", 2, valid_from=valid_from, valid_until=valid_until)
    assert relation.holds_on() is relation.holds_on(None) is relation.holds_on(date.today().isoformat()) is current


def test_the_clock_queries_read_is_one_function_a_test_can_fix(monkeypatch):
    relation = Relation(1, 1, "OWNS", 2, sources=[Source(10, 1, "2009-01-01", "2024-07-01")])
    monkeypatch.setattr(dates, "today", lambda: "2024-06-30")
    assert relation.holds_on()
    monkeypatch.setattr(dates, "today", lambda: "2024-07-02")
    assert not relation.holds_on()


def test_a_superseded_relation_holds_until_its_end_even_when_the_end_is_still_to_come():
    later = Relation(1, 1, "LOCATED_IN", 2, valid_until=days_from_today(90), superseded_by=2)
    assert later.holds_on() and not later.holds_on(days_from_today(91))
    assert not Relation(1, 1, "LOCATED_IN", 2, valid_until=days_from_today(-1), superseded_by=2).holds_on()


def test_an_ended_statement_beside_an_undated_one_ends_the_relation_and_its_valid_until_says_when():
    """An undated statement tells no time (`holds_on`), so the summary dates read only the dated
    ones: Sreevar's ownership, restated without a date in a profile, still ended on 2024-07-01."""
    graph = build([chunk(10, supplies("Sreevar", "Anvaya")),
                   chunk(20, supplies("Sreevar", "Anvaya", "2009-01-01", "2024-07-01"))])
    relation = only_relation(graph)
    assert (relation.valid_from, relation.valid_until) == ("2009-01-01", "2024-07-01")
    assert not relation.holds_on() and relation.holds_on("2020-01-01")


def test_the_latest_end_is_compared_as_a_span_not_as_a_string():
    graph = build([chunk(10, supplies("Anvaya", "Corvane", "2020", "2024")),
                   chunk(11, supplies("Anvaya", "Corvane", "2020-02", "2024-06-30"))])
    assert (only_relation(graph).valid_from, only_relation(graph).valid_until) == ("2020", "2024")


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
