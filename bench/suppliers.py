"""Knowledge-graph quality on the supplier corpus (examples/suppliers): edges, chains, merges.

    .venv/bin/python bench/suppliers.py [--out bench/results/suppliers.json]

1. Structured import (`hopgraph import-triples`): precision/recall of the graph's edges against
   gold_edges.csv, with citation correctness (the edge's chunks include the gold document).
2. Path queries (`hopgraph paths`) for every chain in gold_chains.json: precision/recall of paths,
   and whether every hop cites a gold document.
   The same for the graph an LLM extracted from the documents, replaying the replies a real local
   model gave (examples/suppliers/recorded_replies.json, made by bench/record_supplier_replies.py).
3. Entity resolution on resolution_pairs.csv: precision/recall of "same entity" decisions for
   normalisation alone, + embedding similarity, + the gazetteer (aliases.csv).
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.kg.resolution import resolve
from hopgraph.linkgraph.names import read_gazetteer
from hopgraph.llm import LLMClient, ReplayLLMCache
from hopgraph.query.paths import find_entity, find_paths
from hopgraph.records.knowledge import KnowledgeGraph

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "suppliers"


def entity_id(graph: KnowledgeGraph, name: str) -> int | None:
    try:
        return find_entity(graph, name).id
    except InputError:
        return None


def prf(true_positive: int, predicted: int, actual: int) -> dict[str, float]:
    precision = true_positive / predicted if predicted else 0.0
    recall = true_positive / actual if actual else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "tp": true_positive,
            "predicted": predicted, "actual": actual}


def edge_quality(hg: HopGraph, gold_rows: list[dict[str, str]]) -> dict[str, Any]:
    """Gold edges are counted by their names; one is found when both names resolve to entities of the
    graph and the graph holds that relation between them (so recall's denominator never shrinks).
    Precision: the share of the graph's relations that are some gold edge."""
    graph = hg.knowledge_graph
    doc_names = {doc_id: Path(src).name for doc_id, src in hg.store.chunk_table().sources.items()}
    predicted = {(r.source, r.relation, r.target): r for r in graph.relations}
    gold: dict[tuple[str, str, str], set[str]] = {}
    for row in gold_rows:
        gold.setdefault((row["subject"], row["relation"], row["object"]), set()).add(row["doc"])
    hits = {names: (entity_id(graph, names[0]), names[1], entity_id(graph, names[2])) for names in gold}
    hits = {names: key for names, key in hits.items() if key in predicted}
    cited = sum(1 for names, key in hits.items() if gold[names] & {doc_names.get(s.doc_id)
                                                                     for s in predicted[key].sources})
    correct = len(set(hits.values()))
    return {"precision": round(correct / len(predicted), 3) if predicted else 0.0,
            "recall": round(len(hits) / len(gold), 3), "gold_found": len(hits), "gold": len(gold),
            "predicted": len(predicted), "correct_citations": cited}


def chain_quality(hg: HopGraph, chains: list[dict[str, Any]]) -> dict[str, Any]:
    graph = hg.knowledge_graph
    doc_names = {doc_id: Path(src).name for doc_id, src in hg.store.chunk_table().sources.items()}
    per_chain, tp, n_found, n_gold, hops_cited, hops_total = [], 0, 0, 0, 0, 0
    for chain in chains:
        query = chain["query"]
        try:
            found = find_paths(graph, query.get("to") or query["from"], query["direction"], query["max_hops"],
                               1000, query.get("end_type"), query.get("follow"), query.get("as_of"))
        except InputError:  # the graph lacks the query's entity (an extracted graph may)
            found = []
        as_key = lambda hops: frozenset((entity_id(graph, h["source"]), h["relation"],  # noqa: E731
                                         entity_id(graph, h["target"])) for h in hops)
        gold = {as_key(p): p for p in chain["paths"]}
        mine = {as_key([h.as_dict() for h in p]): p for p in found}
        matched = set(gold) & set(mine)
        for key in matched:
            by_relation = sorted(gold[key], key=lambda h: h["relation"])
            for hop, gold_hop in zip(sorted(mine[key], key=lambda h: h.relation), by_relation, strict=False):
                hops_total += 1
                hops_cited += doc_names.get(hop.doc_id) in set(gold_hop.get("docs", [gold_hop["doc"]]))
        tp, n_found, n_gold = tp + len(matched), n_found + len(mine), n_gold + len(gold)
        per_chain.append({"id": chain["id"], **prf(len(matched), len(mine), len(gold))})
    complete = sum(1 for c in per_chain if c["recall"] == 1.0 and c["precision"] == 1.0)
    return {**prf(tp, n_found, n_gold), "chains_exact": complete, "chains": len(chains),
            "hops_citing_a_gold_doc": f"{hops_cited}/{hops_total}", "per_chain": per_chain}


def resolution_quality(embedder: Any) -> dict[str, Any]:
    with (CORPUS / "resolution_pairs.csv").open(encoding="utf-8") as handle:
        pairs = list(csv.DictReader(handle))
    # `type` is "ORG", or "PRODUCT|EVENT" when the two names have different types
    types = [(p["type"].split("|")[0], p["type"].split("|")[-1]) for p in pairs]
    mentions = [m for p, (ta, tb) in zip(pairs, types, strict=True) for m in ((p["a"], ta, ""), (p["b"], tb, ""))]
    gazetteer = read_gazetteer(CORPUS / "aliases.csv")
    out = {}
    for label, kwargs in (("normalisation", {}), ("+ embeddings", {"embedder": embedder}),
                          ("+ embeddings + gazetteer", {"embedder": embedder, "gazetteer": gazetteer})):
        resolution = resolve(mentions, **kwargs)
        same = [resolution.entity_of(p["a"], ta) == resolution.entity_of(p["b"], tb)
                for p, (ta, tb) in zip(pairs, types, strict=True)]
        truth = [p["same"] == "1" for p in pairs]
        tp = sum(s and t for s, t in zip(same, truth, strict=True))
        out[label] = {**prf(tp, sum(same), sum(truth)), "review_list": len(resolution.reviews)}
    return out


def llm_graph(tmp: str, replies: Path, gold_rows: list[dict[str, str]], chains: list[dict[str, Any]]) -> dict[str, Any]:
    """Extraction replayed from recorded replies: no model and no network needed."""
    model = json.loads(replies.read_text(encoding="utf-8"))[0]["model"]
    client = LLMClient("http://127.0.0.1:9/v1", model, cache=ReplayLLMCache(replies, strict=True))
    with HopGraph(f"{tmp}/llm.db", Settings()) as hg:
        hg.index([CORPUS / "docs"], CORPUS / "aliases.csv")
        report = hg.extract(client)
        graph = hg.knowledge_graph
        # Score only the documents whose replies were recorded (a partial recording is a slice).
        failed = {chunk for chunk, _ in report.failed}
        table = hg.store.chunk_table()
        done = {Path(table.sources[int(d)]).name for c, d in zip(table.ids, table.doc_ids, strict=True)
                if int(c) not in failed}
        rows = [row for row in gold_rows if row["doc"] in done]
        covered = [c for c in chains if all(h["doc"] in done for p in c["paths"] for h in p)]
        return {"model": model, "documents_scored": len(done), "chunks": report.chunks,
                "not_recorded": len(report.failed), "skipped": report.skipped,
                "entities": len(graph.entities), "relations": len(graph.relations),
                "edges": edge_quality(hg, rows), "chains": chain_quality(hg, covered) if covered else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench/results/suppliers.json"))
    args = parser.parse_args()
    with (CORPUS / "gold_edges.csv").open(encoding="utf-8") as handle:
        gold_rows = list(csv.DictReader(handle))
    chains = json.loads((CORPUS / "gold_chains.json").read_text(encoding="utf-8"))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, HopGraph(f"{tmp}/suppliers.db", Settings()) as hg:
        started = time.perf_counter()
        hg.index([CORPUS / "docs"], CORPUS / "aliases.csv")
        report = hg.import_triples(CORPUS / "triples.csv")
        results["import"] = {"seconds": round(time.perf_counter() - started, 2), "triples": report.triples,
                             "entities": report.graph.entities, "relations": report.graph.relations,
                             "merges_to_review": report.graph.reviews}
        results["edges"] = edge_quality(hg, gold_rows)
        results["chains"] = chain_quality(hg, chains)
        results["resolution"] = resolution_quality(hg.embedder)
        replies = CORPUS / "recorded_replies.json"
        if replies.exists():
            results["llm_extraction"] = llm_graph(tmp, replies, gold_rows, chains)
    print(json.dumps({k: v for k, v in results.items()}, indent=1, default=str)[:6000])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
