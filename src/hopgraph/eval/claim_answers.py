"""Answers on evidence-claim sets that carry reference answers (GraphRAG-Bench's novels), graded by
the configured model against the reference, as the benchmark grades them.

Each method (hybrid, auto, iterative) writes its answer with the model; the grader
(prompts/answer_grade.py) calls it correct (1), partly right (0.5) or wrong (0). GraphRAG-Bench's
answer accuracy is 0.75 × its judged factuality + 0.25 × the embedding similarity of answer and
reference, (cos + 1) / 2; `accuracy` here keeps those weights, with the graded verdict as the first
part and the index's own embedder for the second. Per type, and `all` as the unweighted mean of the
types (the leaderboard's average); both halves (whole books) are read from the same run.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.eval.answers import recording, replayed, written_answer
from hopgraph.eval.claims import ClaimQuestion, load_claim_set
from hopgraph.eval.halves import HALVES, select_half
from hopgraph.eval.judges import complete_or_resume
from hopgraph.eval.retrieval import build_index
from hopgraph.eval.tables import text_table
from hopgraph.llm import LLMClient, LLMRequest, RecordingCache
from hopgraph.progress import bar_over
from hopgraph.prompts import answer_grade

CLAIM_ANSWER_METHODS = ("hybrid", "auto", "iterative")
GRADE_STEP = "grade"  # the LLM client's usage of the grader is counted under this step
FACT_WEIGHT, SIMILARITY_WEIGHT = 0.75, 0.25  # GraphRAG-Bench's answer-accuracy weights
SCORES = ("accuracy", "grade", "similarity")


@dataclass(frozen=True)
class GradedAnswer:
    """One question answered by one method, graded against its reference."""

    id: str
    type: str
    half_key: str
    question: str
    reference: str
    answer: str
    grade: float  # 1 correct, 0.5 partly, 0 wrong (or no answer written)
    similarity: float  # (cos + 1) / 2 of the answer's and the reference's embeddings; 0 with no answer
    accuracy: float
    llm_calls: int
    tokens_in: int
    tokens_out: int
    seconds: float


def check_claim_answer_methods(methods: Sequence[str]) -> None:
    unknown = [m for m in methods if m not in CLAIM_ANSWER_METHODS]
    if unknown:
        raise InputError(f"unknown answer method {', '.join(unknown)} for a set with reference answers; use "
                         f"{', '.join(CLAIM_ANSWER_METHODS)}")


def run_claim_answer_eval(data: Path, corpus: Path | None, methods: Sequence[str] = ("hybrid", "auto"),
                          top: int = 5, limit: int | None = None, store: str | None = None,
                          settings: Settings | None = None, quiet: bool = True, half: str | None = None,
                          record: Path | None = None, replay: Path | None = None) -> dict[str, Any]:
    """Index the corpus (the store `run_claim_eval` caches), answer every question of `half` with
    every method and grade the answers. Replies are cached in the store; `record` and `replay` work
    as for HotpotQA-format sets."""
    check_claim_answer_methods(methods)
    settings, cache = replayed(settings or Settings(), replay)
    questions, docs, store = load_claim_set(data, corpus, half, limit, store, settings)
    without = [q.id for q in questions if not q.answer.strip()]
    if without:
        raise InputError(f"{data}: --answers needs a reference answer on every question; {len(without)} lack one "
                         f"(first: {without[0]})")
    with HopGraph(store, settings, quiet=quiet, llm_cache=cache) as hg:
        if not hg.has_llm:
            raise InputError("--answers on an evidence-claim set needs an LLM to write and grade the answers: set "
                             "llm_url and llm_model (or HOPGRAPH_LLM_URL / HOPGRAPH_LLM_MODEL)")
        index_seconds = build_index(hg, docs)
        cache = recording(hg, cache, record)
        results = {method: graded_method(hg, questions, method, top, quiet) for method in methods}
        spent = hg.llm_usage.get(GRADE_STEP)
    recorded = cache.record_to(record) if record is not None and isinstance(cache, RecordingCache) else None
    return {"n_questions": len(questions), "n_documents": len(docs), "top": top, "half": half,
            "reader": f"llm:{settings.llm_model}", "index_seconds": index_seconds, "methods": results,
            "grader_llm": None if spent is None else asdict(spent), "replies_recorded": recorded}


def graded_method(hg: HopGraph, questions: Sequence[ClaimQuestion], method: str, top: int,
                  quiet: bool) -> dict[str, Any]:
    """One method's answers, graded, with per-type means overall and per half."""
    written = [(question, *written_answer(hg, question.text, method, top))
               for question in bar_over(questions, method, quiet, total=len(questions))]
    grades = grade_answers(hg.llm(), [(q.text, q.answer, text) for q, text, _ in written])
    similarities = answer_similarities(hg, [(q.answer, text) for q, text, _ in written])
    rows = [GradedAnswer(q.id, q.type, q.half_key, q.text, q.answer, text, grade, similarity,
                         round(FACT_WEIGHT * grade + SIMILARITY_WEIGHT * similarity, 4), asked.used.llm_calls,
                         asked.used.tokens_in, asked.used.tokens_out, asked.used.seconds.get("total", 0.0))
            for (q, text, asked), grade, similarity in zip(written, grades, similarities, strict=True)]
    halves = {h: by_type(select_half(rows, h, lambda r: r.half_key)) for h in HALVES}
    return {**by_type(rows), "halves": halves, "questions": [asdict(row) for row in rows]}


def grade_answers(client: LLMClient, items: Sequence[tuple[str, str, str]]) -> list[float]:
    """The grade of each (question, reference, answer); an empty answer is wrong and costs no call."""
    asked = [i for i, (_, _, answer) in enumerate(items) if answer.strip()]
    requests = [LLMRequest(answer_grade.messages(*items[i]), answer_grade.AnswerGrade, max_tokens=16,
                           step=GRADE_STEP) for i in asked]
    grades = [0.0] * len(items)
    for i, reply in zip(asked, complete_or_resume(client, requests, "answer grades"), strict=True):
        grades[i] = reply.value.score
    return grades


def answer_similarities(hg: HopGraph, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """(cos + 1) / 2 of each (reference, answer) pair's embeddings (the rows are normalised)."""
    texts = [text for reference, answer in pairs for text in (reference, answer or " ")]
    if not texts:
        return []
    rows = hg.embedder.embed(texts)
    cosines = np.einsum("ij,ij->i", rows[0::2], rows[1::2])
    return [round(float((cos + 1) / 2), 4) if answer.strip() else 0.0
            for cos, (_, answer) in zip(cosines, pairs, strict=True)]


def by_type(rows: Sequence[GradedAnswer]) -> dict[str, Any]:
    """Means per type, and `all`: the unweighted mean of the types, for every score and the spend."""
    grouped: dict[str, list[GradedAnswer]] = defaultdict(list)
    for row in rows:
        grouped[row.type].append(row)
    types = {t: {"n": len(group), **{key: round(statistics.fmean(getattr(r, key) for r in group), 4)
                                     for key in SCORES}} for t, group in sorted(grouped.items())}
    spend = {key: round(statistics.fmean(getattr(r, key) for r in rows), 2) if rows else 0.0
             for key in ("llm_calls", "tokens_in", "tokens_out", "seconds")}
    overall = {key: round(statistics.fmean(t[key] for t in types.values()), 4) if types else 0.0 for key in SCORES}
    return {"by_type": types, "all": {"n": len(rows), **overall, **spend}}


def format_claim_answer_table(result: dict[str, Any]) -> str:
    """One row per method: accuracy per type, then `all` (accuracy, grade, similarity), each half's
    accuracy and the spend per question."""
    methods = result["methods"]
    types = sorted({t for m in methods.values() for t in m["by_type"]})
    header = ["method", *types, "all accuracy", "all grade", "all similarity", "A accuracy", "B accuracy",
              "calls/q", "tokens in/q", "s/q"]
    rows = []
    for method, m in methods.items():
        a = m["all"]
        rows.append([method, *[f"{m['by_type'][t]['accuracy']:.3f}" if t in m["by_type"] else "-" for t in types],
                     f"{a['accuracy']:.3f}", f"{a['grade']:.3f}", f"{a['similarity']:.3f}",
                     *[f"{m['halves'][h]['all']['accuracy']:.3f} ({m['halves'][h]['all']['n']})" for h in HALVES],
                     f"{a['llm_calls']:.1f}", f"{a['tokens_in']:.0f}", f"{a['seconds']:.1f}"])
    half = f", half {result['half'].upper()}" if result.get("half") else ""
    spent = result.get("grader_llm")
    cost = f"; grading: {spent['calls']} calls, {spent['cached']} cached" if spent else ""
    return text_table(f"{result['n_questions']} questions{half}, {result['n_documents']} documents, top "
                      f"{result['top']}, answers by {result['reader']}, graded against the reference{cost}",
                      header, rows)
