"""Community trees of the bundled A Christmas Carol and of the HotpotQA pool: levels, communities
per level, size distribution, connectivity, build time (median of repeats), extractive reports.

    .venv/bin/python bench/communities.py [--data-dir ../shared/data] [--repeats 5]

Both graphs are the no-LLM concept graph (spaCy entities and noun phrases, co-occurrence edges),
built in a fresh temporary store. Writes bench/results/communities.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from hopgraph.communities.leiden import build_communities, entity_graph
from hopgraph.communities.reports import extractive_reports
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval import load_questions, pooled_corpus


def book_path() -> Path:
    return Path(str(resources.files("hopgraph.assets").joinpath("a_christmas_carol.txt")))


def tree_report(hg: HopGraph, repeats: int) -> dict[str, Any]:
    graph = hg.knowledge_graph
    settings = hg.settings
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        tree = build_communities(graph, settings.community_max_size, settings.community_levels)
        seconds.append(time.perf_counter() - started)
    g = entity_graph(graph)
    vertex = {entity_id: i for i, entity_id in enumerate(g.vs["entity"])}
    connected = sum(g.induced_subgraph([vertex[e] for e in c.entities]).is_connected() for c in tree.communities)
    started = time.perf_counter()
    reports = extractive_reports(graph, tree, hg.chunk_texts)
    report_seconds = time.perf_counter() - started
    stats = tree.stats()
    stats.pop("seconds")
    return {"entities": len(graph.entities), "relations": len(graph.relations),
            "graph_vertices": g.vcount(), "graph_edges": g.ecount(), **stats,
            "connected": f"{connected}/{len(tree)}", "build_seconds_median": round(statistics.median(seconds), 3),
            "build_seconds_all": [round(s, 3) for s in seconds],
            "extractive_reports": len(reports), "extractive_report_seconds": round(report_seconds, 2)}


def run(name: str, hg: HopGraph, index: Any, repeats: int) -> dict[str, Any]:
    started = time.perf_counter()
    index()
    indexed = time.perf_counter()
    hg.extract_concepts()
    concepts = time.perf_counter()
    out = {"index_seconds": round(indexed - started, 1), "concept_graph_seconds": round(concepts - indexed, 1),
           **tree_report(hg, repeats)}
    print(f"\n== {name}: {out['entities']} entities, {out['relations']} relations "
          f"({out['graph_vertices']} in the entity graph); index {out['index_seconds']} s, "
          f"concept graph {out['concept_graph_seconds']} s")
    print(f"{out['communities']} communities in {out['levels']} levels, all connected: {out['connected']}; "
          f"Leiden tree built in {out['build_seconds_median']} s (median of {repeats})")
    for level in out["per_level"]:
        print(f"  level {level['level']}: {level['communities']:>5} communities, size min {level['min']} "
              f"median {level['median']} max {level['max']}")
    print(f"extractive reports: {out['extractive_reports']} in {out['extractive_report_seconds']} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench/results/communities.json"))
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="hopgraph-communities-") as tmp:
        with HopGraph(f"{tmp}/book.db", Settings()) as hg:
            results["a_christmas_carol"] = run("A Christmas Carol", hg, lambda: hg.index([book_path()]), args.repeats)
        _, records, _ = load_questions(args.data_dir / "hotpotqa" / "hotpotqa_200.json")
        docs = pooled_corpus(records, "bench:hotpotqa")
        with HopGraph(f"{tmp}/hotpot.db", Settings()) as hg:
            results["hotpotqa_pool"] = run(f"HotpotQA pool ({len(docs)} paragraphs)", hg,
                                           lambda: hg.index_documents(docs), args.repeats)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
