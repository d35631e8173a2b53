"""leidenalg (GPL-3.0-or-later, hopgraph's choice) against graspologic-native (MIT) on stores'
entity graphs: connected communities, sizes, modularity, levels, time.

    pip install --target /tmp/gn graspologic-native      # not a dependency of hopgraph: beside it
    PYTHONPATH=src:/tmp/gn .venv/bin/python bench/leiden_libraries.py STORE [STORE …] [--repeats 3]
                                                         [--out bench/results/leiden_libraries.json]

Each STORE must hold a knowledge graph (`hopgraph extract --concepts --store STORE`). Per graph:
- flat: one partition at resolution 1 (modularity for both: leidenalg's RB-configuration,
  graspologic's `use_modularity`), seed 42, two iterations each. Connected = every community's
  induced subgraph is connected, counted on the library's raw output (before hopgraph splits
  clusters into components); modularity by igraph on each membership.
- tree: hopgraph's recipe (communities/leiden.py: split above `community_max_size`, finer
  resolution when one will not split, components split, clusters under 3 joined) with each
  library as the partition step; and graspologic's own `hierarchical_leiden` (GraphRAG's recipe,
  `max_cluster_size` the same), whose clusters are counted raw.
Times are medians of `--repeats` runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import graspologic_native as gn
import igraph

from hopgraph.communities import leiden
from hopgraph.config import Settings
from hopgraph.engine import HopGraph

SEED = leiden.SEED
ITERATIONS = 2  # leidenalg's default n_iterations; graspologic's default is 1


def edge_list(g: igraph.Graph) -> list[tuple[str, str, float]]:
    return [(str(e.source), str(e.target), float(e["weight"])) for e in g.es]


def graspologic_clusters(g: igraph.Graph, resolution: float, seed: int) -> list[list[int]]:
    """The drop-in for leiden.leiden_clusters: graspologic-native's Leiden (modularity)."""
    if g.ecount() == 0:
        return [[v] for v in range(g.vcount())]
    _, membership = gn.leiden(edge_list(g), resolution=resolution, seed=seed, iterations=ITERATIONS,
                              use_modularity=True)
    groups: dict[int, list[int]] = defaultdict(list)
    for vertex, cluster in membership.items():
        groups[cluster].append(int(vertex))
    isolated = set(range(g.vcount())) - {int(v) for v in membership}  # vertices without an edge
    return [sorted(c) for c in groups.values()] + [[v] for v in sorted(isolated)]


def sizes(clusters: list[list[int]]) -> dict[str, float]:
    lengths = sorted(len(c) for c in clusters)
    return {"min": lengths[0], "median": statistics.median(lengths), "max": lengths[-1]}


def connected(g: igraph.Graph, clusters: list[list[int]]) -> str:
    return f"{sum(g.induced_subgraph(c).is_connected() for c in clusters)}/{len(clusters)}"


def timed(run: Callable[[], Any], repeats: int) -> tuple[Any, float]:
    seconds, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - started)
    return result, round(statistics.median(seconds), 3)


def flat(g: igraph.Graph, partition: Callable[[igraph.Graph, float, int], list[list[int]]],
         repeats: int) -> dict[str, Any]:
    clusters, seconds = timed(lambda: partition(g, 1.0, SEED), repeats)
    membership = [0] * g.vcount()
    for number, cluster in enumerate(clusters):
        for vertex in cluster:
            membership[vertex] = number
    return {"communities": len(clusters), "connected": connected(g, clusters),
            "modularity": round(g.modularity(membership, weights="weight"), 4), "sizes": sizes(clusters),
            "seconds": seconds}


def hopgraph_tree(hg: HopGraph, partition: Callable[[igraph.Graph, float, int], list[list[int]]],
                  repeats: int) -> dict[str, Any]:
    """hopgraph's recipe with `partition` as its Leiden step (swapped in for this run only)."""
    original = leiden.leiden_clusters
    leiden.leiden_clusters = partition
    try:
        tree, seconds = timed(lambda: leiden.build_communities(hg.knowledge_graph, hg.settings.community_max_size,
                                                               hg.settings.community_levels), repeats)
    finally:
        leiden.leiden_clusters = original
    g = leiden.entity_graph(hg.knowledge_graph)  # once: leiden.is_connected rebuilds it per community
    vertex = {entity_id: i for i, entity_id in enumerate(g.vs["entity"])}
    per_level = Counter(c.level for c in tree.communities)
    level0 = [c for c in tree.communities if c.level == 0]
    return {"levels": len(per_level), "per_level": [per_level[n] for n in sorted(per_level)],
            "connected": connected(g, [[vertex[e] for e in c.entities] for c in tree.communities]),
            "level0_sizes": sizes([c.entities for c in level0]), "seconds": seconds}


def graspologic_tree(g: igraph.Graph, max_size: int, repeats: int) -> dict[str, Any]:
    entries, seconds = timed(lambda: gn.hierarchical_leiden(edge_list(g), max_cluster_size=max_size, seed=SEED,
                                                            iterations=ITERATIONS), repeats)
    clusters: dict[tuple[int, int], list[int]] = defaultdict(list)
    for entry in entries:
        clusters[(entry.level, entry.cluster)].append(int(entry.node))
    final = {(e.level, e.cluster) for e in entries if e.is_final_cluster}
    per_level = Counter(level for level, _ in clusters)
    return {"levels": len(per_level), "per_level": [per_level[n] for n in sorted(per_level)],
            "connected": connected(g, list(clusters.values())),
            "level0_sizes": sizes([c for (level, _), c in clusters.items() if level == 0]),
            "final_over_max": sum(1 for key in final if len(clusters[key]) > max_size),
            "seconds": seconds}


def run_store(store: str, repeats: int) -> dict[str, Any]:
    hg = HopGraph(store, Settings(), quiet=True)
    with hg:
        g = leiden.entity_graph(hg.knowledge_graph)
        if g.ecount() == 0:
            raise SystemExit(f"{store}: no knowledge graph (hopgraph extract --concepts --store {store})")
        return {"vertices": g.vcount(), "edges": g.ecount(),
                "flat": {"leidenalg": flat(g, leiden.leiden_clusters, repeats),
                         "graspologic": flat(g, graspologic_clusters, repeats)},
                "tree": {"leidenalg, hopgraph's recipe": hopgraph_tree(hg, leiden.leiden_clusters, repeats),
                         "graspologic, hopgraph's recipe": hopgraph_tree(hg, graspologic_clusters, repeats),
                         "graspologic hierarchical_leiden": graspologic_tree(g, hg.settings.community_max_size,
                                                                             repeats)}}


def table(results: dict[str, Any]) -> str:
    lines = []
    for store, r in results.items():
        lines.append(f"{store}: {r['vertices']} vertices, {r['edges']} edges")
        for name, f in r["flat"].items():
            lines.append(f"  flat  {name:32} {f['communities']:6} communities  connected {f['connected']:>11}  "
                         f"modularity {f['modularity']:.4f}  sizes {f['sizes']}  {f['seconds']} s")
        for name, t in r["tree"].items():
            lines.append(f"  tree  {name:32} levels {t['levels']} {t['per_level']}  connected {t['connected']:>11}  "
                         f"level 0 sizes {t['level0_sizes']}  {t['seconds']} s")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/leiden_libraries.json"))
    args = parser.parse_args()
    results = {Path(s).name: run_store(s, args.repeats) for s in args.stores}
    print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    versions = {name: metadata.version(name) for name in ("graspologic-native", "leidenalg", "igraph")}
    args.out.write_text(json.dumps({"versions": versions, "results": results}, indent=1), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
