"""Router accuracy on a small labelled question set, and how it routes the shared multi-hop sets.

    .venv/bin/python bench/router.py [--questions examples/router_questions.csv] [--with-index]
                                     [--out bench/results/router.json]

1. `examples/router_questions.csv` (lookup / multihop / global, written for this bench, not taken
   from the shared sets): accuracy and a confusion table, routed twice — by question form alone
   (no index) and against the supplier corpus indexed with its gazetteer (names found count).
   The rules' author wrote the set, so read its accuracy as optimistic.
2. The shared sets (every question multi-hop by construction, if found under ../shared/data): the
   share the router calls multi-hop, per question type — an out-of-sample check on question form;
   with `--with-index` also against each set's pooled index (the `hopgraph eval` cache, built if
   missing: 1–3 min each), where a single name found makes a plain-looking question a lookup.
No LLM: the undecided questions take the router's default (multi-hop).
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval import build_index, default_store, load_questions, pooled_corpus
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.router import route

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("lookup", "multihop", "global")
SHARED = {"hotpotqa": "hotpotqa/hotpotqa_200.json", "2wiki": "2wikimultihopqa/2wiki_dev_500.json"}


def score(rows: list[dict[str, str]], index: SearchIndex | None) -> dict[str, Any]:
    confusion: Counter[tuple[str, str]] = Counter()
    wrong, by = [], Counter()
    for row in rows:
        chosen = route(row["question"], index)
        confusion[(row["kind"], chosen.kind)] += 1
        by[chosen.decided_by] += 1
        if chosen.kind != row["kind"]:
            wrong.append({"question": row["question"], "label": row["kind"], "routed": chosen.kind,
                          "reason": chosen.reason})
    correct = sum(n for (label, got), n in confusion.items() if label == got)
    return {"accuracy": round(correct / len(rows), 4), "n": len(rows), "decided_by": dict(by),
            "confusion": {label: {got: confusion[(label, got)] for got in KINDS} for label in KINDS},
            "wrong": wrong}


def print_confusion(title: str, result: dict[str, Any]) -> None:
    print(f"\n{title}: accuracy {result['accuracy']:.3f} ({result['n']} questions; decided by {result['decided_by']})")
    print("label \\ routed  " + "  ".join(f"{k:>8}" for k in KINDS))
    for label in KINDS:
        print(f"{label:<15} " + "  ".join(f"{result['confusion'][label][k]:>8}" for k in KINDS))
    for miss in result["wrong"]:
        print(f"  ✗ {miss['label']} → {miss['routed']}: {miss['question']}  ({miss['reason']})")


def shared_sets(data_dir: Path, with_index: bool) -> dict[str, Any]:
    """Routes of the shared sets' questions by form alone, and optionally against their pooled index."""
    out: dict[str, Any] = {}
    for name, rel in SHARED.items():
        if not (data_dir / rel).exists():
            continue
        questions, records, data_hash = load_questions(data_dir / rel)
        out[name] = {"form_only": routed_share(questions, None)}
        if with_index:
            settings = Settings()
            with HopGraph(default_store(data_hash, "", settings), settings) as hg:
                build_index(hg, pooled_corpus(records, f"eval:{(data_dir / rel).name}"))
                out[name]["with_index"] = routed_share(questions, hg.search_index)
        for how, shares in out[name].items():
            print(f"{name} ({how}): " + "; ".join(f"{t} {v['multihop_share']:.2f} multi-hop of {v['n']}"
                                                  for t, v in shares.items()))
    return out


def routed_share(questions: list[Any], index: SearchIndex | None) -> dict[str, Any]:
    per_type: dict[str, Counter[str]] = {}
    for q in questions:
        per_type.setdefault(q.type, Counter())[route(q.text, index).kind] += 1
    return {t: {"n": sum(c.values()), "multihop_share": round(c["multihop"] / sum(c.values()), 3), **dict(c)}
            for t, c in sorted(per_type.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=ROOT / "examples" / "router_questions.csv")
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "router.json")
    parser.add_argument("--with-index", action="store_true", help="route the shared sets against their indexes too")
    args = parser.parse_args()
    with args.questions.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    results: dict[str, Any] = {"form_only": score(rows, None)}
    print_confusion("by question form (no index)", results["form_only"])
    with tempfile.TemporaryDirectory(prefix="hopgraph-router-") as tmp, \
            HopGraph(str(Path(tmp) / "suppliers.db"), Settings()) as hg:
        hg.index([ROOT / "examples" / "suppliers" / "docs"], ROOT / "examples" / "suppliers" / "aliases.csv")
        results["supplier_index"] = score(rows, hg.search_index)
    print_confusion("against the supplier corpus index (names count)", results["supplier_index"])
    print("\nshared multi-hop sets:")
    results["shared_sets"] = shared_sets(args.data_dir, args.with_index)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
