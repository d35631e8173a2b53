"""The novel table of docs/BENCHMARKS.md: every method at top 5 on GraphRAG-Bench's 10 visible novels,
lexical evidence recall per question type, on the whole set and on held-out halves A and B (whole
books, by the SHA-256 of the book id), beside the ceiling (every chunk retrieved).

    PYTHONPATH=src .venv/bin/python bench/novel.py [--data-dir ../shared/data] [--store-dir DIR]
        [--out bench/results/novel.json]

The index is built once in --store-dir (novel.db) and reused by every later run: a rerun only
retrieves and scores. Halves come from one run over all questions, regrouped per book.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.eval.claims import by_half, load_claim_questions, run_claim_eval
from hopgraph.eval.halves import HALVES, half_of
from query_vectors import embed_each_question_once

METHODS = ["vector", "bm25", "hybrid", "hybrid+links", "hybrid+names+links", "ppr", "auto"]
SET = "graphrag_bench_novel"


def markdown(scores: dict[str, dict[str, Any]], types: list[str]) -> str:
    """Rows: methods then the ceiling; columns: ev_recall per type and `all` (the unweighted mean)."""
    lines = ["| method | " + " | ".join(types) + " | all |", "|---" * (len(types) + 2) + "|"]
    for method, s in scores.items():
        lines.append(f"| {method} | " + " | ".join(f"{s['by_type'][t]['ev_recall']:.3f}" for t in types)
                     + f" | {s['all']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = Path(__file__).resolve().parents[2] / "shared" / "data"
    parser.add_argument("--data-dir", type=Path, default=default_data)
    parser.add_argument("--store-dir", type=Path, default=Path(tempfile.gettempdir()) / "hopgraph-bench-novel")
    parser.add_argument("--out", type=Path, default=Path("bench/results/novel.json"))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    embed_each_question_once()
    data, corpus = args.data_dir / SET / "questions.json", args.data_dir / SET / "corpus.json"
    args.store_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    whole = run_claim_eval(data, corpus, args.methods.split(","), args.top, store=str(args.store_dir / "novel.db"),
                           settings=Settings(), quiet=args.quiet)
    questions, _ = load_claim_questions(data)
    scored = {**whole["methods"], "ceiling": whole["ceiling"]}
    tables: dict[str, Any] = {"whole": {m: {"by_type": s["by_type"], "all": s["all"]} for m, s in scored.items()}}
    for half in HALVES:
        tables[half] = {m: by_half(questions, s)[half] for m, s in scored.items()}
    types = list(whole["ceiling"]["by_type"])
    books = {half: sorted({q.source for q in questions if half_of(q.half_key) == half}) for half in HALVES}
    for name, table in tables.items():
        n = next(iter(table.values()))["by_type"]
        print(f"\n### {name}: " + ", ".join(f"{t} {v['n']}" for t, v in n.items()))
        print(markdown(table, types))
    result = {"top": args.top, "n_questions": whole["n_questions"], "books": books,
              "index_seconds": whole["index_seconds"], "ms_per_query": {m: s["ms_per_query"]
                                                                        for m, s in whole["methods"].items()},
              "tables": tables, "seconds": round(time.perf_counter() - started, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out} in {result['seconds']} s")


if __name__ == "__main__":
    main()
