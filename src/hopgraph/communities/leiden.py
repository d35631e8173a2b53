"""Hierarchical Leiden communities over the entity graph (the recipe of Microsoft's GraphRAG).

Level 0 partitions the whole graph; every community larger than `max_size` is partitioned again on
its own induced subgraph, giving its children one level down, until communities fit (at a finer
resolution, doubled up to 64 times, when the given one keeps a too-large community whole).
Leiden, unlike Louvain, guarantees connected communities; each cluster is still split into its
connected components, so the guarantee holds by construction, not by trust.

`at_level(n)` is a full partition of the graph at depth n: the communities of level n plus the
leaves that stopped splitting above it, so global search at any level sees every entity.
Entities with no relation belong to no community (they have nothing to summarise together).
"""

from __future__ import annotations

import hashlib
import time

import igraph
import leidenalg

from hopgraph.errors import InputError
from hopgraph.records.communities import Community, CommunityTree
from hopgraph.records.knowledge import KnowledgeGraph, Relation

MIN_SIZE = 3  # smaller clusters join a neighbouring one (see _absorb_small)
MAX_RESOLUTION_STEP = 64  # how much finer than asked a too-large community may be partitioned
SEED = 42  # Leiden is randomised: a fixed seed makes a rebuild of the same graph the same tree



def entity_graph(graph: KnowledgeGraph) -> igraph.Graph:
    """Undirected, weighted: parallel and opposite relations between two entities add their weights.
    Vertices are the entities that take part in at least one relation; attribute `entity` = id."""
    weights: dict[tuple[int, int], float] = {}
    for relation in graph.relations:
        a, b = sorted((relation.source, relation.target))
        if a != b:
            weights[(a, b)] = weights.get((a, b), 0.0) + relation.weight
    entity_ids = sorted({e for pair in weights for e in pair})
    vertex = {entity_id: i for i, entity_id in enumerate(entity_ids)}
    g = igraph.Graph(n=len(entity_ids), edges=[(vertex[a], vertex[b]) for a, b in weights])
    g.vs["entity"] = entity_ids
    g.es["weight"] = list(weights.values())
    return g


def build_communities(graph: KnowledgeGraph, max_size: int = 20, max_levels: int = 4,
                      resolution: float = 1.0, seed: int = SEED) -> CommunityTree:
    """The community tree of the graph's entities; see the module docstring."""
    if max_size < 2:
        raise InputError(f"max community size must be at least 2, got {max_size}")
    if max_levels < 1:
        raise InputError(f"max levels must be at least 1, got {max_levels}")
    started = time.perf_counter()
    whole = entity_graph(graph)
    tree: list[Community] = []
    # Breadth first, so ids run level by level and every parent precedes its children.
    queue: list[tuple[igraph.Graph, int | None, int]] = [(whole, None, 0)]
    while queue:
        subgraph, parent, level = queue.pop(0)
        clusters = _connected_clusters(subgraph, resolution, seed)
        finer = resolution
        while parent is not None and len(clusters) == 1 and finer < resolution * MAX_RESOLUTION_STEP:
            # Too big, yet one community at this resolution: ask for finer ones rather than keep it whole.
            finer *= 2
            clusters = _connected_clusters(subgraph, finer, seed)
        if parent is not None and len(clusters) == 1:
            continue  # no resolution splits it: it stays a leaf, not a level of copies of itself
        for members in clusters:
            community = Community(len(tree), level, parent, sorted(subgraph.vs[members]["entity"]))
            tree.append(community)
            if parent is not None:
                tree[parent].children.append(community.id)
            if community.size > max_size and level + 1 < max_levels:
                queue.append((subgraph.induced_subgraph(members), community.id, level + 1))
    for community in tree:
        community.hash = community_hash(graph, community.entities)
    return CommunityTree(tree, time.perf_counter() - started)


def _connected_clusters(g: igraph.Graph, resolution: float, seed: int) -> list[list[int]]:
    """Leiden clusters of g (vertex indices), each split into its connected components."""
    if g.vcount() == 0:
        return []
    clusters = []
    for cluster in leiden_clusters(g, resolution, seed):
        sub = g.induced_subgraph(cluster)
        clusters += [[cluster[i] for i in component] for component in sub.connected_components()]
    return sorted(_absorb_small(g, clusters), key=lambda c: (-len(c), c))


def leiden_clusters(g: igraph.Graph, resolution: float, seed: int) -> list[list[int]]:
    """One Leiden partition of g (vertex indices per cluster): leidenalg's RB-configuration, which
    at resolution 1 is modularity (bench/leiden_libraries.py compares graspologic-native's here)."""
    partition = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition, weights="weight",
                                         resolution_parameter=resolution, seed=seed)
    return [list(cluster) for cluster in partition]


def _absorb_small(g: igraph.Graph, clusters: list[list[int]]) -> list[list[int]]:
    """Clusters under MIN_SIZE join the neighbouring cluster they share the most edge weight with: a
    one-entity community has nothing to report, and a fine resolution leaves many. Joining along an
    edge keeps every community connected; a cluster with no neighbour (a component) stays."""
    membership = [0] * g.vcount()
    for number, cluster in enumerate(clusters):
        for vertex in cluster:
            membership[vertex] = number
    groups = {number: list(cluster) for number, cluster in enumerate(clusters)}
    for number in sorted(groups, key=lambda n: len(groups[n])):
        if number not in groups or len(groups[number]) >= MIN_SIZE:
            continue
        shared: dict[int, float] = {}
        for edge in _edges_of(g, groups[number]):
            other = membership[edge.target] if membership[edge.source] == number else membership[edge.source]
            if other != number:
                shared[other] = shared.get(other, 0.0) + edge["weight"]
        if shared:
            into = max(shared, key=lambda n: (shared[n], -n))
            for vertex in groups.pop(number):
                membership[vertex] = into
                groups[into].append(vertex)
    return [sorted(cluster) for cluster in groups.values()]


def _edges_of(g: igraph.Graph, vertices: list[int]) -> list[igraph.Edge]:
    return [g.es[e] for v in vertices for e in g.incident(v)]


def community_hash(graph: KnowledgeGraph, entity_ids: list[int]) -> str:
    """Stable across graph rebuilds (entity ids are not): member names and internal relations with
    their source chunks. An unchanged community keeps its report after a document update."""
    names = sorted(f"{graph.entities[e].name}|{graph.entities[e].type}" for e in entity_ids)
    relations = sorted(
        f"{graph.entities[r.source].name}|{r.relation}|{graph.entities[r.target].name}|"
        + ",".join(str(s.chunk_id) for s in r.sources)
        for r in relations_within(graph, entity_ids))
    return hashlib.sha256("\n".join([*names, "--", *relations]).encode()).hexdigest()[:20]


def relations_within(graph: KnowledgeGraph, entity_ids: list[int]) -> list[Relation]:
    """The relations between members, by the graph's adjacency (not a scan of every relation: a
    pool of thousands of communities would make that quadratic)."""
    members = set(entity_ids)
    return [graph.relations[p] for e in entity_ids for p in graph.out_edges.get(e, ())
            if graph.relations[p].target in members]


def is_connected(graph: KnowledgeGraph, community: Community) -> bool:
    """Whether the community's entities form one connected piece of the entity graph."""
    g = entity_graph(graph)
    vertex = {entity_id: i for i, entity_id in enumerate(g.vs["entity"])}
    sub = g.induced_subgraph([vertex[e] for e in community.entities])
    return sub.is_connected()
