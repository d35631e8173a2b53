"""Selective recompute: after a small change to the graph, keep the previous partition instead of
running Leiden again (`hopgraph communities --if-changed --threshold 0.1`).

Entity ids change on every graph rebuild, so the previous tree is remembered by entity *name and
type* (store meta `community_partition`), with a signature of each entity's relations. The share
of changed entities is |added ∪ removed ∪ relations changed| / |entities before ∪ after|. Below
the threshold the old communities are carried onto the new ids: removed entities drop out, an
added entity joins the deepest community of the neighbour it shares most relations with (a new
community of its own when no neighbour is placed yet; newcomers after it may join it), and each
community's content hash is computed again — so reports are rewritten only where content changed
(communities/refresh.py).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from hopgraph.communities.leiden import build_communities, community_hash
from hopgraph.errors import HopgraphError, StoreBusy
from hopgraph.records.communities import Community, CommunityTree
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.store.base import CommunityStore


class PartitionStore(CommunityStore, Protocol):
    """Where the tree and the record of its partition (a meta value, written with the tree) are kept."""

    def meta(self) -> dict[str, str]: ...

PARTITION_KEY = "community_partition"


def _key(graph: KnowledgeGraph, entity_id: int) -> str:
    entity = graph.entities[entity_id]
    return f"{entity.name}\x1f{entity.type}"


def signatures(graph: KnowledgeGraph) -> dict[str, str]:
    """Entity key → a hash of its relations (type, direction, the other end's key)."""
    incident: dict[int, list[str]] = {e: [] for e in graph.entities}
    for r in graph.relations:
        incident[r.source].append(f">{r.relation}>{_key(graph, r.target)}")
        incident[r.target].append(f"<{r.relation}<{_key(graph, r.source)}")
    return {_key(graph, e): hashlib.sha1("\n".join(sorted(lines)).encode()).hexdigest()[:16]
            for e, lines in incident.items()}


def partition_record(graph: KnowledgeGraph, tree: CommunityTree) -> str:
    """What meta keeps of a tree: each community's level, parent and members by key, and signatures."""
    return json.dumps({"entities": signatures(graph),
                       "communities": [[c.level, c.parent, [_key(graph, e) for e in c.entities]]
                                       for c in tree.communities]})


def changed_share(graph: KnowledgeGraph, record: str) -> float:
    before, now = json.loads(record)["entities"], signatures(graph)
    keys = set(before) | set(now)
    return sum(before.get(k) != now.get(k) for k in keys) / max(1, len(keys))


def carried_tree(graph: KnowledgeGraph, record: str) -> CommunityTree:
    """The previous communities over the current entities (see the module docstring)."""
    id_of = {_key(graph, e): e for e in graph.entities}
    old = json.loads(record)["communities"]
    members = [[id_of[k] for k in keys if k in id_of] for _, _, keys in old]
    placed = {e for m in members for e in m}
    deepest = _deepest_community(old, members)
    for entity in sorted(set(graph.entities) - placed):
        home = _best_neighbour_home(graph, entity, deepest)
        if home is None:  # a community of its own, which its own new neighbours may then join
            old.append([0, None, []])
            members.append([entity])
            deepest[entity] = len(members) - 1
            continue
        deepest[entity] = home
        while home is not None:  # the member joins its community and every ancestor
            members[home].append(entity)
            home = old[home][1]
    return _renumbered(graph, old, members)


def _deepest_community(old: list, members: list[list[int]]) -> dict[int, int]:
    deepest: dict[int, int] = {}
    for position, entities in enumerate(members):
        for entity in entities:
            if entity not in deepest or old[position][0] > old[deepest[entity]][0]:
                deepest[entity] = position
    return deepest


def _best_neighbour_home(graph: KnowledgeGraph, entity: int, deepest: dict[int, int]) -> int | None:
    neighbours = Counter(r.target if r.source == entity else r.source
                         for p in graph.out_edges[entity] + graph.in_edges[entity]
                         for r in (graph.relations[p],))
    for neighbour, _ in sorted(neighbours.items(), key=lambda item: (-item[1], item[0])):
        if neighbour in deepest:
            return deepest[neighbour]
    return None


def _renumbered(graph: KnowledgeGraph, old: list, members: list[list[int]]) -> CommunityTree:
    """Empty communities dropped, ids renumbered in order (parents still before children)."""
    new_id: dict[int, int] = {}
    tree: list[Community] = []
    for position, (level, parent, _) in enumerate(old):
        if not members[position]:
            continue
        new_id[position] = len(tree)
        community = Community(len(tree), level, new_id.get(parent) if parent is not None else None,
                              sorted(set(members[position])))
        community.hash = community_hash(graph, community.entities)
        if community.parent is not None:
            tree[community.parent].children.append(community.id)
        tree.append(community)
    return CommunityTree(tree)


def current_tree(store: PartitionStore, graph: Callable[[], KnowledgeGraph], max_size: int, levels: int,
                 rebuild: bool = False, if_changed: float | None = None, must_store: bool = True) -> CommunityTree:
    """The stored tree of the current graph; else (the graph was rebuilt, or `rebuild`) the previous
    partition carried over when `if_changed` is given and at most that share of entities changed,
    else Leiden again. The tree is stored, with the record the next change is measured against —
    unless another command holds the store and not `must_store` (a question's tree is used unstored)."""
    tree = None if rebuild else store.community_tree()
    if tree is not None:
        return tree
    knowledge = graph()
    if not knowledge.relations:
        raise HopgraphError("the knowledge graph has no relations yet: run `hopgraph extract` "
                            "(the no-LLM concept graph, or the LLM's) or `hopgraph import-triples` first")
    record = store.meta().get(PARTITION_KEY) if if_changed is not None and not rebuild else None
    share = changed_share(knowledge, record) if record else None
    if share is not None and share <= if_changed:  # type: ignore[operator]
        tree = carried_tree(knowledge, record)  # type: ignore[arg-type]
        tree.how = f"kept the previous partition: {share:.1%} of entities changed (threshold {if_changed:.0%})"
    else:
        tree = build_communities(knowledge, max_size, levels)
        tree.how = "partitioned again" + (f": {share:.1%} of entities changed (threshold {if_changed:.0%})"
                                          if share is not None else "")
    try:
        store.replace_communities(tree, {PARTITION_KEY: partition_record(knowledge, tree)})  # one transaction
    except StoreBusy:
        if must_store:
            raise
        tree.how += " (not stored: another command is writing to the store; a later one stores it)"
    return tree
