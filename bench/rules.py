"""The older ranking rules, each on (as shipped) and off, on halves A and B of the shared sets (issue 21
part 2): a rule chosen on both halves at once is read on each half alone.

    PYTHONPATH=src .venv/bin/python bench/rules.py --store-dir DIR
        [--data-dir ../shared/data] [--sets hotpotqa,2wiki,hotpotqa_ids,...] [--rules turns,...]
        [--out bench/results/rules.json]

*both* (every gold paragraph in the top 5) of `auto` and of the method the rule lives in. A rule is
turned off for its run by a module switch or a Budget field (RULES), never by anything that names a
question. Query-time rules reuse the stores bench/halves.py keeps (`DIR/<set>.db`, as its --sets
names them; nothing is re-embedded). The rules that went (PPR damping 0.5, the walk's second pair of
seed weights, names from the text of titled documents; then the bridge rule) were measured by this
script at commits cebcf38 and ec08d02, as docs/BENCHMARKS.md says.
Verdict per rule (`verdict`): it goes when it loses two or more questions on a half of a set, or
gains on no half; it stays when it gains somewhere and loses at most one question anywhere.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from halves import SETS
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval import build_index
from hopgraph.eval.halves import HALVES, half_of
from hopgraph.eval.retrieval import load_eval_set, score_retrieval
from hopgraph.records.retrieval import Budget, Hit
from hopgraph.retrieval import methods, partial_names, ppr_stage, router, stages
from hopgraph.retrieval.methods import run_method
from hopgraph.retrieval.router import AUTO, run_auto
from query_vectors import embed_each_question_once

GRAPH = "hybrid+names+links+ppr"  # what `auto` runs for lookups and multi-hop questions


@dataclass(frozen=True)
class Rule:
    """A ranking rule, the methods it is read on, and how it is turned off."""

    name: str
    methods: tuple[str, ...]
    switches: dict[tuple[Any, str], Any] = field(default_factory=dict)  # (module, attribute) → value when off
    budget: dict[str, Any] = field(default_factory=dict)  # Budget fields when off


RULES = [
    Rule("turns", (AUTO, GRAPH), {(ppr_stage, "TURNS_AFTER_LINKS"): False}),
    Rule("quoted_title", (AUTO, "hybrid+names+links"), {(stages, "QUOTED_TITLE_IS_ONE_NAME"): False}),
    Rule("namesake", (AUTO, GRAPH), {(methods, "NAMESAKE_ONE_PLACE"): False}),
    Rule("partial_names", (AUTO, "hybrid+names+links"), {(partial_names, "MAX_ROWS"): 0}),
    Rule("router_lookups_graph", (AUTO,), {(router, "METHOD_OF"): {**router.METHOD_OF, "lookup": "hybrid"}}),
    Rule("step_aside_share", (AUTO,), {(router, "STEP_ASIDE_SHARE"): math.inf}),
    Rule("step_aside_one_document", (AUTO,), {(router, "STEP_ASIDE_ONE_DOCUMENT"): False}),
    Rule("keep_cross_document", (AUTO,), {(router, "KEEP_CROSS_DOCUMENT"): False}),
    # The walk's seeds (ranker and link hits at 0.3, backward steps at 0.25); off: every seed full, both ways.
    Rule("ppr_seeds", (AUTO, "ppr"), budget={"ppr_hit_weight": 1.0, "ppr_reverse_weight": 1.0}),
]


@contextmanager
def switched_off(rule: Rule) -> Iterator[None]:
    """The rule's switches set to their off values for the block, then put back."""
    saved = {key: getattr(*key) for key in rule.switches}
    try:
        for (module, attribute), value in rule.switches.items():
            setattr(module, attribute, value)
        yield
    finally:
        for (module, attribute), value in saved.items():
            setattr(module, attribute, value)


def search(hg: HopGraph, question: str, method: str, budget: Budget) -> list[Hit]:
    index, rrf_k = hg.search_index, hg.settings.rrf_k
    if method == AUTO:
        return run_auto(index, question, budget, rrf_k).hits
    return run_method(index, question, method, budget, rrf_k).hits


def found(hg: HopGraph, questions: list[Any], method: str, budget: Budget) -> dict[str, bool]:
    """Question id → both gold paragraphs in the top 5."""
    out = {}
    for q in questions:
        hits = search(hg, q.text, method, budget)
        out[q.id] = bool(score_retrieval(q, [h.title for h in hits], [h.text for h in hits])["both_found"])
    return out


def by_half(on: dict[str, bool], off: dict[str, bool]) -> dict[str, dict[str, Any]]:
    """Per half: questions, both-found on and off, and the ids the rule wins and loses."""
    out = {}
    for half in HALVES:
        ids = [i for i in on if half_of(i) == half]
        out[half] = {"n": len(ids), "on": sum(on[i] for i in ids), "off": sum(off[i] for i in ids),
                     "won": sorted(i for i in ids if on[i] and not off[i]),
                     "lost": sorted(i for i in ids if off[i] and not on[i])}
    return out


def open_set(name: str, data_dir: Path, store: Path) -> tuple[HopGraph, list[Any]]:
    data, corpus = SETS[name]
    settings = Settings()
    qa = load_eval_set(data_dir / data, data_dir / corpus if corpus else None, None, str(store), settings)
    hg = HopGraph(qa.store, settings, quiet=True)
    build_index(hg, qa.docs)  # cached: the kept store is only opened
    return hg, qa.questions


def measure_set(name: str, rules: list[Rule], data_dir: Path, store_dir: Path) -> dict[str, Any]:
    """Rule → method → half → counts, every rule off in turn against the shipped settings."""
    hg, questions = open_set(name, data_dir, store_dir / f"{name}.db")
    on: dict[str, dict[str, bool]] = {}
    out: dict[str, Any] = {}
    with hg:
        for rule in rules:
            out[rule.name] = {}
            for method in rule.methods:
                if method not in on:
                    on[method] = found(hg, questions, method, Budget())
                with switched_off(rule):
                    off = found(hg, questions, method, Budget(**rule.budget))
                out[rule.name][method] = by_half(on[method], off)
    return out


def verdict(results: dict[str, dict[str, Any]], rule: str) -> str:
    """'goes' when any half of any set loses two or more questions with the rule, or no half gains;
    else 'stays'."""
    deltas = [cell["on"] - cell["off"] for per_set in results.values()
              for per_method in per_set.get(rule, {}).values() for cell in per_method.values()]
    if not deltas:
        return "not measured"
    return "goes" if min(deltas) <= -2 or max(deltas) <= 0 else "stays"


def markdown(results: dict[str, dict[str, Any]], rules: list[Rule]) -> str:
    """Rows: rule × method; columns: each set's halves, both-found with the rule on / off."""
    sets = list(results)
    header = ["rule", "method", *[f"{s} {h.upper()}" for s in sets for h in HALVES], "verdict"]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for rule in rules:
        for method in rule.methods:
            cells = []
            for s in sets:
                for h in HALVES:
                    cell = results[s].get(rule.name, {}).get(method, {}).get(h)
                    cells.append(f"{cell['on'] / cell['n']:.3f} / {cell['off'] / cell['n']:.3f}" if cell else "–")
            lines.append(f"| {rule.name} | {method} | " + " | ".join(cells) + f" | {verdict(results, rule.name)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--store-dir", type=Path, required=True, help="The kept stores, DIR/<set>.db.")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--rules", default=",".join(r.name for r in RULES))
    parser.add_argument("--out", type=Path, default=Path("bench/results/rules.json"))
    args = parser.parse_args()
    embed_each_question_once()
    rules = [r for r in RULES if r.name in args.rules.split(",")]
    results: dict[str, Any] = {}
    for name in args.sets.split(","):
        started = time.perf_counter()
        results[name] = measure_set(name, rules, args.data_dir, args.store_dir)
        print(f"{name}: {time.perf_counter() - started:.0f} s", flush=True)
    print(markdown(results, rules))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    summary = {r.name: verdict(results, r.name) for r in rules}
    args.out.write_text(json.dumps({"verdicts": summary, "sets": results}, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
