"""The question's neighbourhood in the knowledge graph (what the inspector draws) and one entity's
relations with the sentences that state them."""

from __future__ import annotations

from hopgraph.query.local import GraphView, LocalBudget
from hopgraph.query.neighbourhood import entity_relations, question_neighbourhood
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation, Source

TEXTS = {
    10: "Big Stone Gap is a 2014 film. The film Big Stone Gap was directed by Adriana Trigiani.",
    11: "Adriana Trigiani is an author. Trigiani lives in Greenwich Village.",
    12: "Greenwich Village is in Manhattan. Manhattan is a borough of New York City.",
}
NAMES = ["Big Stone Gap", "Adriana Trigiani", "Greenwich Village", "Manhattan", "Donna Gigliotti"]


def graph() -> KnowledgeGraph:
    """A chain film → director → neighbourhood → borough, and a producer on the film."""
    entities = {i: Entity(i, name, "NAME", aliases=["Trigiani"] if i == 2 else [])
                for i, name in enumerate(NAMES, start=1)}
    chain = [(1, "DIRECTED_BY", 2, 10), (2, "LIVES_IN", 3, 11), (3, "PART_OF", 4, 12), (1, "PRODUCED_BY", 5, 10)]
    relations = [Relation(n, a, rel, b, sources=[Source(chunk, chunk)]) for n, (a, rel, b, chunk) in enumerate(chain)]
    return KnowledgeGraph(entities, relations)


def test_the_neighbourhood_is_the_named_entities_and_two_hops_around_them():
    found = question_neighbourhood(GraphView(graph()), None, "Where does Trigiani live?")
    hops = {node["name"]: node["hop"] for node in found.nodes}
    assert found.seeds_from == "names in the question"
    assert hops == {"Adriana Trigiani": 0, "Big Stone Gap": 1, "Greenwich Village": 1, "Manhattan": 2,
                    "Donna Gigliotti": 2}
    assert [node["name"] for node in found.nodes if node["seed"]] == ["Adriana Trigiani"]
    assert {(e["source"], e["relation"], e["target"]) for e in found.edges} == {
        (1, "DIRECTED_BY", 2), (2, "LIVES_IN", 3), (3, "PART_OF", 4), (1, "PRODUCED_BY", 5)}


def test_edges_are_drawn_only_between_entities_drawn():
    found = question_neighbourhood(GraphView(graph()), None, "Where does Trigiani live?",
                                   LocalBudget(max_hops=2, max_nodes=3, fan_out=8, max_relations=80))
    drawn = {node["id"] for node in found.nodes}
    assert len(drawn) == 3
    assert all(e["source"] in drawn and e["target"] in drawn for e in found.edges)


def test_an_empty_graph_says_what_to_run():
    found = question_neighbourhood(GraphView(KnowledgeGraph()), None, "Where does Trigiani live?")
    assert (found.nodes, found.edges) == ([], [])
    assert "hopgraph extract" in found.seeds_from


def test_an_entity_s_relations_carry_the_sentence_that_names_both_ends():
    shown = entity_relations(graph(), 1, lambda ids: {i: TEXTS[i] for i in ids})
    assert shown["name"] == "Big Stone Gap"
    by_relation = {r["relation"]: r for r in shown["relations"]}
    assert set(by_relation) == {"DIRECTED_BY", "PRODUCED_BY"}
    directed = by_relation["DIRECTED_BY"]
    assert (directed["source_name"], directed["target_name"]) == ("Big Stone Gap", "Adriana Trigiani")
    assert directed["sources"] == [{"chunk": 10,
                                    "sentence": "The film Big Stone Gap was directed by Adriana Trigiani."}]
    lives = entity_relations(graph(), 2, lambda ids: {i: TEXTS[i] for i in ids})
    [lives_in] = [r for r in lives["relations"] if r["relation"] == "LIVES_IN"]
    assert lives_in["sources"][0]["sentence"] == "Trigiani lives in Greenwich Village."
