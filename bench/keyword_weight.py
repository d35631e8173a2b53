"""Choosing how much a BM25 rank counts against a vector rank in long documents (issue 21).

    PYTHONPATH=src .venv/bin/python bench/keyword_weight.py --store STORE \
        [--data ../shared/data/graphrag_bench_novel/questions.json] [--json bench/results/keyword_weight.json]

`STORE` is any store holding the claim set's corpus (`hopgraph eval --data … --corpus …` keeps one
under `$HOPGRAPH_CACHE/eval`; names play no part here). Per question the vector and BM25 rankings
are read once, then fused for every (k, weight) as hybrid fuses them (`stages.fuse_ranked`, a BM25
rank adding weight / (k + rank)), and the top 5 scored with the lexical claim judge. Printed and
written per half: the unweighted mean over question types (`all`) and Complex Reasoning. The weight
is chosen on half A and read on half B (router.LONG_DOCUMENT_KEYWORD_WEIGHT); weight 1 at k 10 is
today's hybrid, a very large weight is BM25's order.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from hopgraph.engine import HopGraph
from hopgraph.eval.claims import load_claim_questions
from hopgraph.eval.halves import HALVES, half_of
from hopgraph.eval.judges import ClaimsToJudge, LexicalJudge
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval import stages

KS = (10, 30, 60)
WEIGHTS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 1000.0)


def measure(store: str, data: Path, top: int) -> dict[str, dict[str, float]]:
    questions, _ = load_claim_questions(data)
    index, judge, depth = HopGraph(store).search_index, LexicalJudge(), Budget().candidates
    recalls: dict[tuple[int, float], dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    for question in questions:
        cosine = stages.vector_ranking(index, index.embedder.embed_query(question.text), depth)
        keyword = stages.bm25_scores(index, question.text)
        ranked = [stages.ranked_rows(cosine, depth), stages.ranked_rows(keyword, depth)]
        for k in KS:
            for weight in WEIGHTS:
                fused = stages.fuse_ranked(ranked, k, 1e-6 * cosine, [1.0, weight])  # dense below the ANN threshold
                rows = stages.top_rows(fused, top).tolist()
                [verdicts] = judge.judge([ClaimsToJudge(question.claims, tuple(index.table.texts[r] for r in rows))])
                found = sum(verdicts) / len(verdicts) if verdicts else 0.0
                recalls[(k, weight)][(half_of(question.half_key), question.type)].append(found)
    table: dict[str, dict[str, float]] = {}
    for (k, weight), by_cell in recalls.items():
        row = {}
        for half in HALVES:
            types = sorted({t for h, t in by_cell if h == half})
            row[half] = statistics.mean(statistics.mean(by_cell[(half, t)]) for t in types)
            row[f"{half}_complex_reasoning"] = statistics.mean(by_cell[(half, "Complex Reasoning")])
        table[f"k={k} weight={weight:g}"] = row
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", required=True)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/graphrag_bench_novel/questions.json"))
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--json", type=Path, default=Path("bench/results/keyword_weight.json"))
    args = parser.parse_args()
    table = measure(args.store, args.data, args.top)
    print(f"{'fusion':<22}" + "".join(f"{c:>24}" for c in next(iter(table.values()))))
    for name, row in table.items():
        print(f"{name:<22}" + "".join(f"{v:>24.3f}" for v in row.values()))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"store": args.store, "data": str(args.data), "top": args.top, "table": table},
                                    indent=1))
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
