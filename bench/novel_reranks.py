"""Reorderings of hybrid's top 20 on the GraphRAG-Bench novels (issue 21 part 4): can anything the
index knows lift Complex Reasoning by 0.03 over hybrid without an LLM?

    PYTHONPATH=src .venv/bin/python bench/novel_reranks.py --store /tmp/eval-novel/novel.db
        [--data-dir ../shared/data] [--out bench/results/novel_reranks.json]

Each rule reorders the same candidates (hybrid's top `POOL` for every question) and keeps five;
lexical evidence recall per type is read on halves A and B (whole books) as bench/novel.py does:
- `coverage`: greedy, each pick adds the idf mass of question terms no earlier pick held, beside
  the candidate's rank (an aspect per pick: a reasoning question's claims are about its parts);
- `mmr`: maximal marginal relevance, rank prior minus the best cosine to an earlier pick;
- `linked`: the first `keep` hits stay, then candidates linked to the first three (by a name, either
  way) before the rest, in hybrid's order: the graph as a re-ranker of what hybrid already found.
The weights listed are every one run; none was chosen before the other half was read.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.claims import load_claim_questions
from hopgraph.eval.halves import HALVES, half_of
from hopgraph.eval.judges import claim_tokens, lexically_found
from hopgraph.text.bm25 import keyword_terms

POOL = 20
Rerank = Callable[[str, list[int]], list[int]]


def coverage(index: Any, weight: float) -> Rerank:
    texts = index.table.texts
    df = Counter(term for text in texts for term in set(keyword_terms(text)))

    def idf(term: str) -> float:
        return math.log(1 + (len(texts) - df[term] + 0.5) / (df[term] + 0.5))

    def rerank(question: str, rows: list[int]) -> list[int]:
        wanted = {t: idf(t) for t in set(keyword_terms(question))}
        total = sum(wanted.values()) or 1.0
        terms = [set(keyword_terms(texts[r])) & wanted.keys() for r in rows]
        picked: list[int] = []
        covered: set[str] = set()
        while len(picked) < min(5, len(rows)):
            gains = {i: 1 / (i + 3) + weight * sum(wanted[t] for t in terms[i] - covered) / total
                     for i in range(len(rows)) if i not in picked}
            best = max(gains, key=lambda i: (gains[i], -i))
            picked.append(best)
            covered |= terms[best]
        return [rows[i] for i in picked]
    return rerank


def mmr(index: Any, weight: float) -> Rerank:
    def rerank(question: str, rows: list[int]) -> list[int]:
        similar = index.vectors[rows] @ index.vectors[rows].T
        picked: list[int] = []
        while len(picked) < min(5, len(rows)):
            scores = {i: 1 / (i + 10) - weight * max((similar[i, j] for j in picked), default=0.0)
                      for i in range(len(rows)) if i not in picked}
            picked.append(max(scores, key=lambda i: (scores[i], -i)))
        return [rows[i] for i in picked]
    return rerank


def linked(index: Any, keep: int) -> Rerank:
    either_way = ((index.links != 0).astype(np.int8) + (index.links != 0).T.astype(np.int8)).tocsr()

    def rerank(question: str, rows: list[int]) -> list[int]:
        near = {int(t) for r in rows[:3] for t in either_way.indices[either_way.indptr[r]:either_way.indptr[r + 1]]}
        rest = rows[keep:]
        return (rows[:keep] + [r for r in rest if r in near] + [r for r in rest if r not in near])[:5]
    return rerank


def score(questions: list[Any], texts: list[str], picks: dict[str, list[int]]) -> dict[str, Any]:
    """ev_recall per type and the unweighted mean, per half."""
    found: dict[tuple[str, str], list[float]] = {}
    for q in questions:
        chunks = [claim_tokens(texts[r]) for r in picks[q.id]]
        share = sum(lexically_found(claim_tokens(c), chunks) for c in q.claims) / len(q.claims)
        found.setdefault((half_of(q.half_key), q.type), []).append(share)
    out = {}
    for half in HALVES:
        types = {t: round(sum(v) / len(v), 3) for (h, t), v in sorted(found.items()) if h == half}
        out[half] = {**types, "all": round(sum(types.values()) / len(types), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="the novel store bench/novel.py built (novel.db)")
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("bench/results/novel_reranks.json"))
    args = parser.parse_args()
    questions, _ = load_claim_questions(args.data_dir / "graphrag_bench_novel" / "questions.json")
    with HopGraph(args.store, Settings(), create=False, quiet=True) as hg:
        index = hg.search_index
        pools = {q.id: [index.row_of_chunk[h.chunk_id] for h in hg.search(q.text, method="hybrid", top=POOL).hits]
                 for q in questions}
        rules: dict[str, Rerank] = {"hybrid": lambda _q, rows: rows[:5]}
        rules |= {f"coverage {w}": coverage(index, w) for w in (0.1, 0.2, 0.5)}
        rules |= {f"mmr {w}": mmr(index, w) for w in (0.02, 0.05, 0.08)}
        rules |= {f"linked keep {k}": linked(index, k) for k in (2, 3, 4)}
        results = {name: score(questions, index.table.texts, {q.id: rule(q.text, pools[q.id]) for q in questions})
                   for name, rule in rules.items()}
    print("| rule | A Complex Reasoning | A Fact Retrieval | A all | B Complex Reasoning | B Fact Retrieval | B all |")
    print("|---|---|---|---|---|---|---|")
    for name, halves in results.items():
        cells = [halves[h][k] for h in HALVES for k in ("Complex Reasoning", "Fact Retrieval", "all")]
        print(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"pool": POOL, "results": results}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
