"""The PPR settings and routing choices behind `ppr` and `auto`, swept on both shared sets.

    .venv/bin/python bench/ppr_sweep.py [--data-dir ../shared/data] [--out bench/results/ppr_sweep.json]

Uses the `hopgraph eval` index cache (built if missing: 1–3 min per set). Every row is both-found@5
per question type; question embeddings are computed once per question and reused by every row.
1. `hybrid+names+links+ppr` and `ppr` over damping, hops, hit weight and backward-step weight
   (None = the method's default, search/ppr_method.py);
2. what `auto` would score if lookups ran another method (hybrid, ppr) instead of its own.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval import Question, build_index, default_store, load_questions, pooled_corpus
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval.methods import run_method
from hopgraph.retrieval.router import route
from hopgraph.text.embed import Embedder, make_embedder

SETS = {"hotpotqa": "hotpotqa/hotpotqa_200.json", "2wiki": "2wikimultihopqa/2wiki_dev_500.json"}
COMBINED = "hybrid+names+links+ppr"
GRID: list[tuple[str, dict[str, Any]]] = [
    ("hybrid+names+links", {}),
    *[(COMBINED, {"ppr_damping": d}) for d in (0.3, 0.5, 0.85)],
    *[(COMBINED, {"ppr_hops": h}) for h in (2, 4, 8)],
    *[(m, {"ppr_hit_weight": w, "ppr_reverse_weight": r}) for m in (COMBINED, "ppr")
      for r in (1.0, 0.5, 0.25, 0.1) for w in (0.3, 1.0)],
]


class CachedQueries:
    """The embedder, remembering each question's vector: a sweep asks the same questions many times."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Any, progress: object = None) -> np.ndarray:
        return self.inner.embed(texts, progress)

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.memo:
            self.memo[text] = self.inner.embed_query(text)
        return self.memo[text]


def both_found(hg: HopGraph, questions: list[Question], method_of: Any, budget: Budget) -> dict[str, float]:
    by_type: dict[str, list[bool]] = defaultdict(list)
    for q in questions:
        hits = run_method(hg.search_index, q.text, method_of(q.text), budget, hg.settings.rrf_k).hits
        by_type[q.type].append(q.gold_titles <= {h.title for h in hits})
    every = [x for rows in by_type.values() for x in rows]
    share = lambda rows: round(float(np.mean(rows)), 4)  # noqa: E731
    return {"all": share(every), **{t: share(rows) for t, rows in sorted(by_type.items())}}


def sweep_set(name: str, path: Path) -> dict[str, Any]:
    questions, records, data_hash = load_questions(path)
    settings = Settings()
    embedder = CachedQueries(make_embedder(settings))
    out: dict[str, Any] = {"grid": [], "auto_lookups": {}}
    with HopGraph(default_store(data_hash, "", settings), settings, embedder=embedder) as hg:  # type: ignore[arg-type]
        build_index(hg, pooled_corpus(records, f"eval:{path.name}"))
        for method, params in GRID:
            result = both_found(hg, questions, lambda _q, m=method: m, Budget(**params))
            out["grid"].append({"method": method, **params, **result})
            print(f"{name:8} {method:24} {json.dumps(params):55} {json.dumps(result)}", flush=True)
        kinds = {q.text: route(q.text, hg.search_index).kind for q in questions}
        for lookup_method in ("hybrid", "ppr", COMBINED):
            chosen = lambda q, m=lookup_method: m if kinds[q] == "lookup" else COMBINED  # noqa: E731
            out["auto_lookups"][lookup_method] = result = both_found(hg, questions, chosen, Budget())
            print(f"{name:8} auto, lookups → {lookup_method:24} {json.dumps(result)}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--out", type=Path, default=Path("bench/results/ppr_sweep.json"))
    args = parser.parse_args()
    results = {name: sweep_set(name, args.data_dir / rel) for name, rel in SETS.items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
