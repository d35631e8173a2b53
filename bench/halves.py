"""Held-out halves of the shared sets: every method at top 5, both gold paragraphs found, on halves
A and B (the SHA-256 of the question id) — so a rule chosen on one half is read on the other.

    PYTHONPATH=src .venv/bin/python bench/halves.py [--data-dir ../shared/data] [--store-dir DIR]
        [--sets hotpotqa,2wiki] [--out bench/results/halves.json]

Each set is indexed once in --store-dir (both halves share the whole pooled corpus), so a rerun only
retrieves. --sets also takes the untitled forms: hotpotqa_ids, hotpotqa_docs3, 2wiki_ids, 2wiki_docs3,
and the merged pool: hotpotqa_merged, 2wiki_merged ask each set's questions over the paragraphs of
both sets (5,263, about the size of the held-out pools), written once to --store-dir.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.eval import run_eval
from hopgraph.eval.halves import HALVES
from hopgraph.retrieval.methods import METHODS as SINGLE_METHODS
from query_vectors import embed_each_question_once

METHODS = [*SINGLE_METHODS, "ppr", "hybrid+names+links+ppr", "auto"]
SETS = {"hotpotqa": ("hotpotqa/hotpotqa_200.json", None), "2wiki": ("2wikimultihopqa/2wiki_dev_500.json", None),
        **{f"{name}_{form}": (f"untitled/{stem}_{form}_q.json", f"untitled/{stem}_{form}_corpus.json")
           for name, stem in (("hotpotqa", "hotpotqa_200"), ("2wiki", "2wiki_500")) for form in ("ids", "docs3")}}
MERGED = {"hotpotqa_merged": "hotpotqa", "2wiki_merged": "2wiki"}  # questions of one set, paragraphs of both


def merged_pool(data_dir: Path, out_dir: Path, name: str) -> tuple[Path, Path]:
    """The questions of `name`'s set (contexts dropped) and a corpus of every paragraph of both sets,
    one per title, first text wins, joined as `hopgraph index` joins a record's sentences."""
    paragraphs: dict[str, str] = {}
    for data, _ in (SETS["hotpotqa"], SETS["2wiki"]):
        for record in json.loads((data_dir / data).read_text(encoding="utf-8")):
            for title, sentences in record["context"]:
                text = " ".join(s.strip() for s in sentences)
                if text.strip():
                    paragraphs.setdefault(title, text)
    corpus, questions = out_dir / "merged_corpus.json", out_dir / f"{name}_q.json"
    corpus.write_text(json.dumps([{"title": t, "text": x} for t, x in paragraphs.items()]), encoding="utf-8")
    records = json.loads((data_dir / SETS[MERGED[name]][0]).read_text(encoding="utf-8"))
    questions.write_text(json.dumps([{**record, "context": []} for record in records]), encoding="utf-8")
    return questions, corpus


def markdown(by_half: dict[str, dict[str, Any]]) -> str:
    """Rows: methods; columns: both-found per type and overall, on each half."""
    types = list(next(iter(by_half["a"]["methods"].values()))["by_type"])
    header = [f"{h.upper()} {t}" for h in HALVES for t in types] + [f"{h.upper()} all" for h in HALVES]
    lines = ["| method | " + " | ".join(header) + " |", "|---" * (len(header) + 1) + "|"]
    for method in by_half["a"]["methods"]:
        cells = [f"{by_half[h]['methods'][method]['by_type'].get(t, {}).get('both_found', 0):.3f}"
                 for h in HALVES for t in types]
        cells += [f"{by_half[h]['methods'][method]['all']['both_found']:.3f}" for h in HALVES]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = Path(__file__).resolve().parents[2] / "shared" / "data"
    parser.add_argument("--data-dir", type=Path, default=default_data)
    parser.add_argument("--store-dir", type=Path, default=Path(tempfile.gettempdir()) / "hopgraph-bench-halves")
    parser.add_argument("--sets", default="hotpotqa,2wiki")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--out", type=Path, default=Path("bench/results/halves.json"))
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    embed_each_question_once()
    args.store_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    for name in args.sets.split(","):
        if name in MERGED:
            data_path, corpus_path = merged_pool(args.data_dir, args.store_dir, name)
        else:
            data, corpus = SETS[name]
            data_path, corpus_path = args.data_dir / data, args.data_dir / corpus if corpus else None
        started = time.perf_counter()
        store = args.store_dir / ("merged.db" if name in MERGED else f"{name}.db")  # one index of the merged pool
        results[name] = {half: run_eval(data_path, corpus_path, args.methods.split(","), 5, store=str(store),
                                        settings=Settings(), quiet=args.quiet, half=half) for half in HALVES}
        sizes = ", ".join(f"{h.upper()} {r['n_questions']} q" for h, r in results[name].items())
        print(f"\n### {name} ({sizes}; {time.perf_counter() - started:.0f} s)\n{markdown(results[name])}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
