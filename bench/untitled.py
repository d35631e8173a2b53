"""Untitled documents: the six methods, ppr and auto on the four untitled forms beside the two titled sets.

    .venv/bin/python bench/untitled.py [--data-dir ../shared/data] [--store-dir DIR] [--repeats 3]
                                       [--out bench/results/untitled.json]

Default settings, no flags: names from the text plus the titles that are names (decided per
document), paragraph chunking. Forms: HotpotQA and 2Wiki pooled paragraphs with their titles
(`titled`), with every title replaced by an opaque id (`ids`), and shuffled into documents of three
unrelated paragraphs each (`docs3`); gold paragraphs are scored by document title. Fresh stores in
a temporary folder unless `--store-dir` keeps them, so the index times are those of a first run:
embedding and reading names (spaCy) are reported per 1,000 paragraphs. Query latency is the
median over `--repeats` runs of each method's p50 (the machine's cores are shared).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.eval import run_eval
from hopgraph.linkgraph.aboutness import VERSION as READER

METHODS = ["vector", "bm25", "hybrid", "vector+links", "hybrid+links", "hybrid+names+links", "ppr", "auto"]
FORMS = {  # name → (questions, corpus or None for the pooled titled contexts)
    "hotpotqa titled": ("hotpotqa/hotpotqa_200.json", None),
    "2wiki titled": ("2wikimultihopqa/2wiki_dev_500.json", None),
    "hotpotqa ids": ("untitled/hotpotqa_200_ids_q.json", "untitled/hotpotqa_200_ids_corpus.json"),
    "2wiki ids": ("untitled/2wiki_500_ids_q.json", "untitled/2wiki_500_ids_corpus.json"),
    "hotpotqa docs3": ("untitled/hotpotqa_200_docs3_q.json", "untitled/hotpotqa_200_docs3_corpus.json"),
    "2wiki docs3": ("untitled/2wiki_500_docs3_q.json", "untitled/2wiki_500_docs3_corpus.json"),
}


def run_form(name: str, data_dir: Path, store_dir: Path, repeats: int) -> dict[str, Any]:
    data, corpus = FORMS[name]
    store = str(store_dir / f"{name.replace(' ', '_')}.db")
    args = (data_dir / data, data_dir / corpus if corpus else None)
    result = run_eval(*args, methods=METHODS, store=store, settings=Settings())
    p50s = {m: [v["ms_per_query"]["p50"]] for m, v in result["methods"].items()}
    for _ in range(repeats - 1):  # the index is built: these runs time the queries only
        again = run_eval(*args, methods=METHODS, store=store, settings=Settings())
        for m, v in again["methods"].items():
            p50s[m].append(v["ms_per_query"]["p50"])
    result["p50_median_ms"] = {m: round(statistics.median(v), 2) for m, v in p50s.items()}
    seconds = result["index_seconds"]
    per_k = 1000 / max(1, result["n_paragraphs"])
    result["per_1000_paragraphs_s"] = {"embed": round(seconds["embed"] * per_k, 1),
                                       "read_names": round(seconds["read_names"] * per_k, 1)}
    return result


def table(results: dict[str, dict[str, Any]]) -> str:
    forms = list(results)
    header = ["method", *forms]
    rows = [[m, *(f"{results[f]['methods'][m]['all']['both_found']:.3f}" for f in forms)] for m in METHODS]
    rows.append(["auto p50 ms", *(f"{results[f]['p50_median_ms']['auto']:.1f}" for f in forms)])
    rows.append(["chunks", *(str(results[f]["index_seconds"]["chunks"]) for f in forms)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [header, *rows])


def index_cost(data_dir: Path, paragraphs: int) -> dict[str, float]:
    """Seconds per 1,000 paragraphs to embed them and to read their names, measured on a fresh store
    (the forms above reuse their stores, so their index times are those of cached runs)."""
    from hopgraph.engine import HopGraph
    from hopgraph.ingest.readers import read_documents

    docs = read_documents(data_dir / "untitled/hotpotqa_200_ids_corpus.json")[:paragraphs]
    with tempfile.TemporaryDirectory(prefix="hopgraph-cost-") as tmp, HopGraph(f"{tmp}/cost.db", Settings()) as hg:
        seconds = hg.index_documents(docs).seconds
    per_k = 1000 / len(docs)
    return {"paragraphs": len(docs), "embed": round(seconds["embed"] * per_k, 1),
            "read_names": round(seconds["read_names"] * per_k, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--out", type=Path, default=Path("bench/results/untitled.json"))
    parser.add_argument("--store-dir", type=Path, help="Keep (and reuse) the indexes here.")
    parser.add_argument("--repeats", type=int, default=3, help="Runs per form for the latency median.")
    parser.add_argument("--forms", default=",".join(FORMS))
    parser.add_argument("--cost-paragraphs", type=int, default=500, help="Paragraphs indexed fresh for the cost.")
    args = parser.parse_args()
    settings = Settings()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="hopgraph-untitled-") as tmp:
        store_dir = args.store_dir or Path(tmp)
        store_dir.mkdir(parents=True, exist_ok=True)
        for name in args.forms.split(","):
            results[name] = run_form(name, args.data_dir, store_dir, max(1, args.repeats))
            print(f"{name}: auto {results[name]['methods']['auto']['all']['both_found']:.3f}", flush=True)
    print("\nboth found @5, default settings " f"(names_from={settings.names_from}, chunking={settings.chunking} "
          f"{settings.chunk_tokens}/{settings.chunk_overlap}, reader {READER})")
    print(table(results))
    cost = index_cost(args.data_dir, args.cost_paragraphs)
    print(f"\nindex cost, fresh store, {cost['paragraphs']} HotpotQA paragraphs: embedding {cost['embed']} s and "
          f"reading names {cost['read_names']} s per 1,000 paragraphs")
    out = {"settings": {"names_from": settings.names_from, "chunking": settings.chunking,
                        "chunk_tokens": settings.chunk_tokens, "chunk_overlap": settings.chunk_overlap},
           "reader": READER, "spacy": metadata.version("spacy"), "index_cost_per_1000": cost, "forms": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
