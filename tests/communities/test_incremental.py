"""Selective recompute: the share of changed entities, and the previous partition carried onto a
rebuilt graph (new ids, an entity added, one removed)."""

from __future__ import annotations

from hopgraph.communities.incremental import carried_tree, changed_share, partition_record
from hopgraph.communities.leiden import build_communities, community_hash
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation, Source


def graph_of(names: list[str], edges: list[tuple[str, str]]) -> KnowledgeGraph:
    """Entities numbered from 100 in reverse order, so ids differ from one build to the next."""
    ids = {name: 100 + len(names) - i for i, name in enumerate(names)}
    graph = KnowledgeGraph({ids[n]: Entity(ids[n], n, "ORG") for n in names})
    graph.relations = [Relation(i, ids[a], "SUPPLIES", ids[b], sources=[Source(i, i)])
                       for i, (a, b) in enumerate(edges, start=1)]
    graph.index()
    return graph


TWO_GROUPS = (["A", "B", "C", "X", "Y", "Z"],
              [("A", "B"), ("B", "C"), ("A", "C"), ("X", "Y"), ("Y", "Z"), ("X", "Z"), ("C", "X")])


def members(graph: KnowledgeGraph, tree) -> list[set[str]]:
    return sorted(({graph.entities[e].name for e in c.entities} for c in tree.communities if c.level == 0), key=sorted)


def test_nothing_changed_is_a_share_of_zero_and_every_change_counts_both_ends() -> None:
    graph = graph_of(*TWO_GROUPS)
    record = partition_record(graph, build_communities(graph, max_size=3))
    assert changed_share(graph_of(*TWO_GROUPS), record) == 0.0
    grown = graph_of([*TWO_GROUPS[0], "D"], [*TWO_GROUPS[1], ("D", "A")])
    assert changed_share(grown, record) == 2 / 7  # D is new; A has a new relation


def test_the_partition_is_carried_onto_new_ids_with_a_newcomer_beside_its_neighbour() -> None:
    before = graph_of(*TWO_GROUPS)
    tree = build_communities(before, max_size=3)
    after = graph_of(["D", *TWO_GROUPS[0][:-1]], [("A", "B"), ("B", "C"), ("A", "C"), ("X", "Y"), ("C", "X"),
                                                  ("D", "Y")])  # Z removed, D added next to Y
    carried = carried_tree(after, partition_record(before, tree))
    old = [group - {"Z"} for group in members(before, tree)]
    assert members(after, carried) == sorted(
        (group | {"D"} if "Y" in group else group for group in old), key=sorted)
    for community in carried.communities:
        assert community.hash == community_hash(after, community.entities)
        assert all(e in after.entities for e in community.entities)
        if community.parent is not None:
            assert set(community.entities) <= set(carried.communities[community.parent].entities)


def test_newcomers_with_no_placed_neighbour_found_a_community_of_their_own() -> None:
    before = graph_of(*TWO_GROUPS)
    after = graph_of([*TWO_GROUPS[0], "P", "Q"], [*TWO_GROUPS[1], ("P", "Q")])
    carried = carried_tree(after, partition_record(before, build_communities(before, max_size=3)))
    assert {"P", "Q"} in members(after, carried)
