"""Hierarchical Leiden communities: connected, nested, a full partition per level, stable hashes."""

from __future__ import annotations

import random

import pytest

from hopgraph.communities.leiden import MIN_SIZE, build_communities, community_hash, entity_graph, is_connected
from hopgraph.errors import InputError
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation, Source


def make_graph(edges: list[tuple[str, str]], isolated: tuple[str, ...] = ()) -> KnowledgeGraph:
    names = sorted({n for edge in edges for n in edge} | set(isolated))
    entities = {i: Entity(i, name, "CONCEPT") for i, name in enumerate(names, start=1)}
    by_name = {e.name: e.id for e in entities.values()}
    relations = [Relation(i, by_name[a], "RELATED_TO", by_name[b], sources=[Source(100 + i, 1)])
                 for i, (a, b) in enumerate(edges, start=1)]
    return KnowledgeGraph(entities, relations)


def clique(prefix: str, n: int) -> list[tuple[str, str]]:
    return [(f"{prefix}{i}", f"{prefix}{j}") for i in range(n) for j in range(i + 1, n)]


def names(graph: KnowledgeGraph, entity_ids: list[int]) -> set[str]:
    return {graph.entities[e].name for e in entity_ids}


def test_two_cliques_joined_by_one_edge_are_two_communities() -> None:
    graph = make_graph(clique("a", 5) + clique("b", 5) + [("a0", "b0")], isolated=("loner",))
    tree = build_communities(graph, max_size=10)
    top = tree.at_level(0)
    assert sorted(map(frozenset, (names(graph, c.entities) for c in top)), key=sorted) == [
        {f"a{i}" for i in range(5)}, {f"b{i}" for i in range(5)}]
    assert tree.levels == 1  # both fit under the size bound: no second level
    assert "loner" not in {n for c in top for n in names(graph, c.entities)}  # no relation, no community


def test_large_communities_are_split_again_one_level_down() -> None:
    # Four cliques of 6 in a ring, one edge between neighbours; with a size bound of 8 the coarse
    # partition (if it groups cliques) must be refined below, and every leaf is at most 8 or unsplittable.
    edges = clique("a", 6) + clique("b", 6) + clique("c", 6) + clique("d", 6)
    edges += [("a0", "b0"), ("b1", "c1"), ("c2", "d2"), ("d3", "a3")]
    tree = build_communities(make_graph(edges), max_size=8, resolution=0.05)
    assert tree.levels >= 2
    for community in tree.communities:
        if community.children:
            child_members = [e for child in community.children for e in tree.communities[child].entities]
            assert sorted(child_members) == community.entities  # children partition their parent
            assert all(tree.communities[child].level == community.level + 1 for child in community.children)
            assert all(tree.communities[child].parent == community.id for child in community.children)


def test_every_community_is_connected_and_each_level_is_a_partition() -> None:
    rng = random.Random(7)
    nodes = [f"n{i}" for i in range(120)]
    edges = list({tuple(sorted(rng.sample(nodes, 2))) for _ in range(260)})  # sparse: many pieces
    graph = make_graph(edges)  # type: ignore[arg-type]
    tree = build_communities(graph, max_size=6)
    assert all(is_connected(graph, c) for c in tree.communities)
    in_graph = set(entity_graph(graph).vs["entity"])
    for level in range(tree.levels):
        members = [e for c in tree.at_level(level) for e in c.entities]
        assert sorted(members) == sorted(in_graph)  # every related entity exactly once per level
    components = [set(g.vs[c]["entity"]) for g in [entity_graph(graph)] for c in g.connected_components()]
    for community in tree.communities:  # a tiny community is a whole component: nothing to join
        assert community.size >= MIN_SIZE or set(community.entities) in components
    assert [c.id for c in tree.communities] == list(range(len(tree)))
    assert all(c.parent is None or c.parent < c.id for c in tree.communities)  # parents first


def test_the_same_graph_gives_the_same_tree() -> None:
    edges = clique("a", 7) + clique("b", 4) + [("a1", "b1"), ("b2", "c"), ("c", "d")]
    first, second = build_communities(make_graph(edges), 4), build_communities(make_graph(edges), 4)
    assert [(c.level, c.entities, c.hash) for c in first.communities] == [
        (c.level, c.entities, c.hash) for c in second.communities]


def test_hash_survives_renumbering_but_not_a_changed_relation() -> None:
    edges = [("x", "y"), ("y", "z")]
    graph = make_graph(edges)
    renumbered = KnowledgeGraph({e.id + 50: Entity(e.id + 50, e.name, e.type) for e in graph.entities.values()},
                                [Relation(r.id, r.source + 50, r.relation, r.target + 50, sources=r.sources)
                                 for r in graph.relations])
    assert community_hash(graph, sorted(graph.entities)) == community_hash(renumbered, sorted(renumbered.entities))
    renumbered.relations[0].sources = [Source(999, 1)]  # stated by another chunk now: the report is stale
    assert community_hash(graph, sorted(graph.entities)) != community_hash(renumbered, sorted(renumbered.entities))


@pytest.mark.parametrize(("max_size", "max_levels"), [(1, 3), (5, 0)])
def test_bad_bounds_are_refused(max_size: int, max_levels: int) -> None:
    with pytest.raises(InputError):
        build_communities(make_graph([("a", "b")]), max_size=max_size, max_levels=max_levels)


def test_an_empty_graph_has_no_communities() -> None:
    tree = build_communities(KnowledgeGraph())
    assert len(tree) == 0 and tree.levels == 0 and tree.at_level(0) == []
