"""The middle step of a walk's fall-open: the facts the top hits state, as relations and as one-hop paths
(through the facade in test_answer.py)."""

from __future__ import annotations

from hopgraph.kg.facts import CO_OCCURS
from hopgraph.query.fallopen import as_paths, facts_of_hits, hits_stating
from hopgraph.records.knowledge import Entity, Hop, KnowledgeGraph, Relation, Source
from hopgraph.records.retrieval import Hit

ENTITIES = {i: Entity(i, name, "ORG") for i, name in enumerate(["Anvaya", "Corvane", "Zephyra", "Hosur", "Pune"])}


def relation(id_: int, source: int, kind: str, target: int, *chunks: int, superseded_by: int | None = None) -> Relation:
    return Relation(id_, source, kind, target, sources=[Source(c, c * 10) for c in chunks],
                    valid_until="2024-01" if superseded_by else None, superseded_by=superseded_by)


GRAPH = KnowledgeGraph(ENTITIES, [
    relation(1, 0, "SUPPLIES", 1, 11),  # stated by the second hit
    relation(2, 1, "SUPPLIES", 2, 22, 33),  # by the first hit and one that is no hit
    relation(3, 0, CO_OCCURS, 3, 22),  # co-occurrence states no fact
    relation(4, 0, "LOCATED_IN", 3, 22, superseded_by=5),  # no longer holds
    relation(5, 0, "LOCATED_IN", 4, 44),  # no hit states it
])


def hit(chunk: int) -> Hit:
    return Hit(chunk, chunk * 10, f"doc {chunk}", "", 1.0, "hybrid")


HITS = [hit(22), hit(11), hit(66)]


def test_the_facts_of_the_hits_are_the_current_stated_relations_best_ranked_hit_first():
    assert [r.id for r in facts_of_hits(GRAPH, HITS)] == [2, 1]


def test_the_facts_are_capped_and_hits_without_facts_give_none():
    assert [r.id for r in facts_of_hits(GRAPH, HITS, limit=1)] == [2]
    assert facts_of_hits(GRAPH, [hit(66)]) == [] and facts_of_hits(GRAPH, []) == []


def test_each_fact_is_a_one_hop_path_citing_the_best_ranked_hit_that_states_it():
    assert as_paths(GRAPH, facts_of_hits(GRAPH, HITS), HITS) == [[Hop("Corvane", "SUPPLIES", "Zephyra", 22, 220)],
                                                                  [Hop("Anvaya", "SUPPLIES", "Corvane", 11, 110)]]


def test_the_hits_stating_the_facts_keep_their_rank_order():
    assert [h.chunk_id for h in hits_stating(HITS, facts_of_hits(GRAPH, HITS))] == [22, 11]
