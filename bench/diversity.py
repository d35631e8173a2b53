"""Issue 21: the step-aside rule's cross-document hits, and choosing the per-document diversity cap.

    PYTHONPATH=src .venv/bin/python bench/diversity.py --set suppliers --store STORE --out OUT
    PYTHONPATH=src .venv/bin/python bench/diversity.py --set hotpotqa_docs3 --store STORE --out OUT
    PYTHONPATH=src .venv/bin/python bench/diversity.py --set novel --store /tmp/eval-novel/novel.db --out OUT

STORE is the store `hopgraph eval` indexed for the set (its `--store`, or the cached one). Per
question: `auto` as it was (stepping aside to hybrid's hits alone), `auto` keeping the graph's
cross-document hits when it steps aside (router.KEEP_CROSS_DOCUMENT), and that `auto` under every
cap (share × window, retrieval/diversity.py) applied to the same hits, so every cell of the table
scores the same retrievals. Per half: *both* found (the QA sets, mean over questions) or lexical
evidence recall (the novels, the unweighted mean of the types), and how often the cap fires.
"""

from __future__ import annotations

import argparse
import json
import statistics
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
from hopgraph.retrieval import router, stages
from hopgraph.retrieval.diversity import DiversityCap, cap_per_document, exempt_document
from query_vectors import embed_each_question_once

SHARES = (0.2, 0.4, 0.6)
WINDOWS = (1.0, 2.0, 4.0)  # 1.0: replacements only from the ranker's own top k
DOMINANT = (None, 0.5)  # exempt a document holding half of the ranker's window, or none
TOP = 5
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SETS = {"suppliers": Path(__file__).resolve().parents[1] / "examples" / "suppliers" / "questions.json",
        "novel": DATA / "graphrag_bench_novel" / "questions.json",
        "hotpotqa": DATA / "hotpotqa" / "hotpotqa_200.json", "2wiki": DATA / "2wikimultihopqa" / "2wiki_dev_500.json",
        "hotpotqa_docs3": DATA / "untitled" / "hotpotqa_200_docs3_q.json",
        "2wiki_docs3": DATA / "untitled" / "2wiki_500_docs3_q.json",
        "hotpotqa_ids": DATA / "untitled" / "hotpotqa_200_ids_q.json",
        "2wiki_ids": DATA / "untitled" / "2wiki_500_ids_q.json"}


def items_of(name: str) -> list[tuple[str, str, str, str, Any]]:
    """(id, half key, type, text, question) of every question of a set."""
    if name == "novel":
        questions, _ = load_claim_questions(SETS[name])
        return [(q.id, q.half_key, q.type, q.text, q) for q in questions]
    qa, _, _ = load_questions(SETS[name])
    return [(q.id, q.id, q.type, q.text, q) for q in qa]


def scorer(name: str):  # type: ignore[no-untyped-def]
    judge = LexicalJudge()

    def score(question: Any, hits: list[Hit]) -> float:
        if name == "novel":
            verdicts = judge.judge([ClaimsToJudge(question.claims, tuple(h.text for h in hits))])[0]
            return sum(verdicts) / len(verdicts)
        return score_retrieval(question, [h.title for h in hits], [h.text for h in hits])["both_found"]
    return score


def auto_hits(hg: HopGraph, text: str, keep_cross: bool, one_document: bool = False) -> list[Hit]:
    router.KEEP_CROSS_DOCUMENT, router.STEP_ASIDE_ONE_DOCUMENT = keep_cross, one_document
    return hg.search(text, "auto", top=TOP).hits


def rows_for(hg: HopGraph, name: str) -> list[dict[str, Any]]:
    score, index, rows = scorer(name), hg.search_index, []
    depth = int(max(WINDOWS) * TOP)
    for qid, key, type_, text, question in items_of(name):
        before, after = auto_hits(hg, text, False), auto_hits(hg, text, True)
        one_document = auto_hits(hg, text, True, True)
        ranked = hg.search(text, "hybrid", top=depth).hits
        exempt = exempt_document(int(index.table.doc_ids[row]) for row, _ in stages.names_in_question(index, text))
        row = {"id": qid, "half": half_of(key), "type": type_, "hybrid": score(question, ranked[:TOP]),
               "auto before": score(question, before), "auto": score(question, after),
               "cross kept": float({h.chunk_id for h in after} != {h.chunk_id for h in before}),
               "auto one-document": score(question, one_document),
               "one-document fires": float({h.chunk_id for h in after} != {h.chunk_id for h in one_document})}
        for share in SHARES:
            for window in WINDOWS:
                for dominant in DOMINANT:
                    cap = DiversityCap(share, window, dominant)
                    capped, replaced = cap_per_document(after, ranked, cap, TOP, exempt)
                    label = f"{share} w{window}" + (f" d{dominant}" if dominant else "")
                    row[f"cap {label}"] = score(question, capped)
                    row[f"fires {label}"] = float(replaced > 0)
        rows.append(row)
    return rows


def changed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The questions where some variant scores differently from `auto` (the rest would only repeat it)."""
    return [r for r in rows if any(v != r["auto"] for k, v in r.items() if k.startswith(("auto", "cap")))]


def mean(rows: list[dict[str, Any]], key: str, by_type: bool) -> float:
    if not by_type:
        return statistics.fmean(r[key] for r in rows)
    types = sorted({r["type"] for r in rows})
    return statistics.fmean(statistics.fmean(r[key] for r in rows if r["type"] == t) for t in types)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=list(SETS), required=True)
    parser.add_argument("--store", required=True, help="the store `hopgraph eval` indexed for the set")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    embed_each_question_once()
    with HopGraph(args.store, Settings(), quiet=True, create=False) as hg:
        rows = rows_for(hg, args.set)
    keys = [k for k in rows[0] if k not in ("id", "half", "type")]
    report = {}
    for half in HALVES:
        chosen = [r for r in rows if r["half"] == half]
        by_type = args.set == "novel"  # the novel table's `all`: the unweighted mean of the types
        counts = ("fires", "cross", "one-document fires")  # shares of questions, not scores
        report[half] = {"n": len(chosen), **{k: round(mean(chosen, k, by_type and not k.startswith(counts)), 4)
                                             for k in keys}}
        print(f"half {half.upper()}: " + json.dumps(report[half]))
    if args.out:
        args.out.write_text(json.dumps({"set": args.set, "halves": report, "questions": changed(rows)}, indent=1)
                            + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
