"""Choosing when `auto` steps aside to hybrid (issue 21 part 3): per question, what the graph method
placed, and how a rule "step aside when the graph's evidence is weak" would score on halves A and B.

    PYTHONPATH=src .venv/bin/python bench/graph_signal.py --set novel --store-dir DIR
    PYTHONPATH=src .venv/bin/python bench/graph_signal.py --set hotpotqa --store-dir DIR

The signal: of the hits the graph placed (found by a link or the walk), the share that lie in a
document the other hits (named or ranked) already come from — links that stay inside the seeds'
own documents add no second document. The rule fires at or above a threshold; it is chosen on half
A and read on half B. Uses the stores bench/novel.py and bench/halves.py keep (--store-dir).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.claims import load_claim_questions
from hopgraph.eval.halves import HALVES, half_of
from hopgraph.eval.judges import ClaimsToJudge, LexicalJudge
from hopgraph.eval.questions import load_questions
from hopgraph.eval.retrieval import score_retrieval
from hopgraph.records.retrieval import Hit
from hopgraph.retrieval import router
from query_vectors import embed_each_question_once

THRESHOLDS = (0.01, 0.34, 0.5, 0.67, 1.0, 2.0)  # 2.0: never fires (auto as it is)
SETS = {"novel": "graphrag_bench_novel/questions.json", "hotpotqa": "hotpotqa/hotpotqa_200.json",
        "2wiki": "2wikimultihopqa/2wiki_dev_500.json",
        "suppliers": str(Path(__file__).resolve().parents[1] / "examples" / "suppliers" / "questions.json")}


def rows_for(hg: HopGraph, name: str, data: Path) -> list[dict[str, Any]]:
    judge, rows = LexicalJudge(), []
    if name == "novel":
        questions, _ = load_claim_questions(data)
        items = [(q.id, q.half_key, q.type, q.text, q) for q in questions]
    else:
        hotpot, _, _ = load_questions(data)
        items = [(q.id, q.id, q.type, q.text, q) for q in hotpot]

    def score(question: Any, hits: list[Hit]) -> float:
        if name == "novel":
            verdicts = judge.judge([ClaimsToJudge(question.claims, tuple(h.text for h in hits))])[0]
            return sum(verdicts) / len(verdicts)
        return score_retrieval(question, [h.title for h in hits], [h.text for h in hits])["both_found"]

    for qid, key, type_, text, question in items:
        hybrid, auto = hg.search(text, "hybrid", top=5).hits, hg.search(text, "auto", top=5).hits
        rows.append({"id": qid, "half": half_of(key), "type": type_, "hybrid": score(question, hybrid),
                     "auto": score(question, auto), "signal": router.own_document_share(auto)})
    return rows


def mean_by_type(rows: list[dict[str, Any]], key: str) -> float:
    """The unweighted mean of the per-type means (the novel set's `all`; on the shared sets close to the mean)."""
    types = sorted({r["type"] for r in rows})
    return statistics.fmean(statistics.fmean(r[key] for r in rows if r["type"] == t) for t in types)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--set", choices=list(SETS), default="novel")
    parser.add_argument("--store", help="the indexed store (default: --store-dir/<set>.db)")
    parser.add_argument("--store-dir", type=Path, default=Path(tempfile.gettempdir()) / "hopgraph-bench-novel")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    embed_each_question_once()
    router.STEP_ASIDE_SHARE = float("inf")  # `auto` without the rule: the rule is applied below, per threshold
    store = args.store or str(args.store_dir / f"{args.set}.db")
    with HopGraph(store, Settings(), quiet=True, create=False) as hg:
        rows = rows_for(hg, args.set, args.data_dir / SETS[args.set])
    report: dict[str, Any] = {}
    for half in HALVES:
        chosen = [r for r in rows if r["half"] == half]
        line = {"n": len(chosen), "hybrid": round(mean_by_type(chosen, "hybrid"), 4),
                "auto": round(mean_by_type(chosen, "auto"), 4)}
        for t in THRESHOLDS:
            ruled = [{**r, "ruled": r["hybrid"] if r["signal"] >= t else r["auto"]} for r in chosen]
            line[f"step aside at {t}"] = round(mean_by_type(ruled, "ruled"), 4)
            line[f"fires at {t}"] = round(statistics.fmean(r["signal"] >= t for r in chosen), 3)
        report[half] = line
        print(f"half {half.upper()}: " + json.dumps(line))
    if args.out:
        args.out.write_text(json.dumps({"halves": report, "questions": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
