"""Reproduce the retrieval numbers of docs/BENCHMARKS.md in one command.

    .venv/bin/python bench/retrieval.py [--data-dir ../shared/data] [--out bench/results/retrieval.json]

For each shared set: a fresh index (embed + BM25 + names + links, timed), the six methods plus
`ppr`, `hybrid+names+links+ppr` and `auto` (the router) at top 5 by question type with query
latency, the effect of the name filter (on vs off) and of the RRF k.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.eval import format_table, run_eval
from hopgraph.retrieval.methods import METHODS
from hopgraph.store import open_store

SETS = {"hotpotqa": "hotpotqa/hotpotqa_200.json", "2wiki": "2wikimultihopqa/2wiki_dev_500.json"}
GRAPH_METHODS = ["hybrid+links", "hybrid+names+links"]
MAIN_METHODS = [*METHODS, "ppr", "hybrid+names+links+ppr", "auto"]  # issue 4: the walk and the router


def hub_report(store_path: str, top: int = 8) -> dict[str, Any]:
    """Which names make the most links, and how many names each filter removed."""
    store = open_store(store_path)
    graph = store.name_graph()
    store.close()
    surface = {name.id: name.surface for name in graph.names}
    per_name = Counter(link.name_id for link in graph.links)
    return {"names": len(graph.names), "links": len(graph.links),
            "filtered": dict(Counter(name.filtered for name in graph.names if name.filtered)),
            "top_linking_names": [[surface[n], c] for n, c in per_name.most_common(top)]}


def summary(result: dict[str, Any]) -> dict[str, Any]:
    return {m: {"all": r["all"]["both_found"], **{t: v["both_found"] for t, v in r["by_type"].items()}}
            for m, r in result["methods"].items()}


def bench_set(name: str, data: Path, workdir: Path, quiet: bool) -> dict[str, Any]:
    store = str(workdir / f"{name}.db")
    started = time.perf_counter()
    main = run_eval(data, store=store, settings=Settings(), methods=MAIN_METHODS, quiet=quiet)
    print(f"\n== {name}: fresh index + {len(MAIN_METHODS)} methods in {time.perf_counter() - started:.0f} s")
    print(format_table(main))
    print(f"index seconds: {json.dumps(main['index_seconds'])}")
    out: dict[str, Any] = {"main": main, "graph_filtered": hub_report(store)}
    unfiltered = replace(Settings(), min_name_chars=0, max_name_doc_share=1.0)
    no_filter = run_eval(data, store=store, settings=unfiltered, methods=GRAPH_METHODS, quiet=quiet)
    out["graph_unfiltered"] = hub_report(store)
    out["name_filter"] = {"on": summary({"methods": {m: main["methods"][m] for m in GRAPH_METHODS}}),
                          "off": summary(no_filter)}
    print(f"name filter on : {out['graph_filtered']['links']} links, filtered {out['graph_filtered']['filtered']}")
    print(f"name filter off: {out['graph_unfiltered']['links']} links; "
          f"top linking names: {out['graph_unfiltered']['top_linking_names']}")
    for state in ("on", "off"):
        print(f"  filter {state}: " + "; ".join(f"{m} {v['all']:.3f}" for m, v in out["name_filter"][state].items()))
    out["rrf_k"] = {}
    for k in (10, 30, 60, 100):  # the default is 10
        result = run_eval(data, store=store, settings=replace(Settings(), rrf_k=k),
                          methods=["hybrid", "hybrid+names+links"], quiet=quiet)
        out["rrf_k"][k] = summary(result)
        print(f"  rrf k={k:<3}: " + "; ".join(f"{m} {v['all']:.3f}" for m, v in out["rrf_k"][k].items()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = Path(__file__).resolve().parents[2] / "shared" / "data"
    parser.add_argument("--data-dir", type=Path, default=default_data)
    parser.add_argument("--out", type=Path, default=Path("bench/results/retrieval.json"))
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="hopgraph-bench-") as tmp:
        for name in args.sets.split(","):
            results[name] = bench_set(name, args.data_dir / SETS[name], Path(tmp), args.quiet)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
