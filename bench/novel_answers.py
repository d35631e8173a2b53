"""Answer accuracy on a slice of GraphRAG-Bench's 10 visible novels: `hybrid` and `auto` answers
written by the configured LLM and graded by it against the reference answers
(src/hopgraph/eval/claim_answers.py), per question type and per half (whole books).

    HOPGRAPH_LLM_URL=http://127.0.0.1:PORT/v1 HOPGRAPH_LLM_MODEL=... \\
    PYTHONPATH=src .venv/bin/python bench/novel_answers.py --per-half 25 --store-dir DIR \\
        [--methods hybrid,auto] [--out bench/results/novel_answers.json] [--record FILE]

The slice is the `--per-half` questions of each half with the smallest SHA-256 of their id: a stable
sample across the half's books and question types, the same on every run. The index is the one
bench/novel.py builds in --store-dir (novel.db), built here if it is not there yet; the model's
replies are cached in it, so a stopped run resumes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from pathlib import Path

from hopgraph.config import load_settings
from hopgraph.eval.claim_answers import format_claim_answer_table, run_claim_answer_eval
from hopgraph.eval.halves import HALVES, half_of

SET = "graphrag_bench_novel"


def sliced(questions: list[dict], per_half: int) -> list[dict]:
    """The `per_half` questions of each half (by book) with the smallest SHA-256 of their id."""
    chosen = []
    for half in HALVES:
        own = [q for q in questions if half_of(q["source"]) == half]
        chosen += sorted(own, key=lambda q: hashlib.sha256(q["id"].encode()).hexdigest())[:per_half]
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--store-dir", type=Path, required=True)
    parser.add_argument("--per-half", type=int, default=25)
    parser.add_argument("--methods", default="hybrid,auto")
    parser.add_argument("--out", type=Path, default=Path("bench/results/novel_answers.json"))
    parser.add_argument("--record", type=Path, help="also write every LLM reply used to this file")
    args = parser.parse_args()
    questions = json.loads((args.data_dir / SET / "questions.json").read_text(encoding="utf-8"))
    args.store_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "slice.json"
        data.write_text(json.dumps(sliced(questions, args.per_half)), encoding="utf-8")
        result = run_claim_answer_eval(data, args.data_dir / SET / "corpus.json", args.methods.split(","),
                                       store=str(args.store_dir / "novel.db"), settings=load_settings(),
                                       quiet=False, record=args.record)
    print(format_claim_answer_table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
