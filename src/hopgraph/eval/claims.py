"""Evaluation on evidence-claim sets (GraphRAG-Bench's format): each question carries the reference
claims its answer rests on, and a method scores the share of them found in its top-k chunks.

A record is `{"id", "source"?, "question", "type", "evidence": [claims]}` and the corpus a JSON list
of `{"title", "text"}` (long documents, chunked as `hopgraph index` chunks them). Per question,
`ev_recall` = claims found / claims; per type the mean of that, and `all` the unweighted mean of the
types (the benchmark's leaderboard averages types that way). The ceiling is the same score with
every chunk of the corpus retrieved, by the lexical judge: what no retriever can beat.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.eval.halves import HALVES, select_half
from hopgraph.eval.judges import JUDGE_STEP, JUDGES, ClaimsToJudge, Judge, LexicalJudge, check_judge
from hopgraph.eval.retrieval import build_index, corpus_documents, default_store, percentile
from hopgraph.eval.tables import text_table
from hopgraph.ingest.readers import read_text_file
from hopgraph.linkgraph.naming import check_source
from hopgraph.progress import bar_over
from hopgraph.records.documents import Document
from hopgraph.retrieval.methods import parse_method
from hopgraph.retrieval.router import AUTO

CLAIM_REQUIRED = ("question", "type", "evidence")


@dataclass(frozen=True)
class ClaimQuestion:
    id: str
    source: str  # the document the question is about ("" when the set does not say)
    text: str
    type: str
    claims: tuple[str, ...]
    answer: str = ""  # the reference answer, when the set gives one (scored by `eval --answers`)

    @property
    def half_key(self) -> str:
        """Whole sources go to one half (a book's questions are never split); else the question."""
        return self.source or self.id


def _records(path: Path) -> tuple[list[Any], str]:
    text = read_text_file(path)
    try:
        records = ([json.loads(line) for line in text.splitlines() if line.strip()]
                   if path.suffix.lower() == ".jsonl" else json.loads(text))
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: malformed JSON at line {err.lineno} column {err.colno}: {err.msg}") from None
    if not isinstance(records, list) or not records:
        raise InputError(f"{path}: expected a non-empty JSON list of question records")
    return records, hashlib.sha256(text.encode()).hexdigest()


def is_claim_set(path: Path) -> bool:
    """The set's first record carries `evidence` claims (else it is read as HotpotQA records)."""
    first = _records(path)[0][0]
    return isinstance(first, dict) and "evidence" in first


def load_claim_questions(path: Path) -> tuple[list[ClaimQuestion], str]:
    """The questions and the file's content hash (the cache key)."""
    records, digest = _records(path)
    questions = []
    for i, record in enumerate(records):
        missing = [key for key in CLAIM_REQUIRED if not isinstance(record, dict) or key not in record]
        if missing:
            raise InputError(f"{path}: record {i} lacks {', '.join(missing)} (an evidence-claim record needs "
                             f"{', '.join(CLAIM_REQUIRED)})")
        claims = record["evidence"]
        if not isinstance(claims, list) or not claims or not all(isinstance(c, str) and c.strip() for c in claims):
            raise InputError(f"{path}: record {i}'s evidence must be a non-empty list of claims (strings)")
        questions.append(ClaimQuestion(str(record.get("id", i)), str(record.get("source", "")), record["question"],
                                       str(record["type"]), tuple(claims), str(record.get("answer") or "")))
    return questions, digest


def recall(verdicts: Sequence[bool]) -> float:
    return sum(verdicts) / len(verdicts)


def by_type(questions: Sequence[ClaimQuestion], recalls: Sequence[float]) -> dict[str, Any]:
    """Mean ev_recall per type, and `all`: the unweighted mean of the types."""
    grouped: dict[str, list[float]] = defaultdict(list)
    for question, value in zip(questions, recalls, strict=True):
        grouped[question.type].append(value)
    means = {t: statistics.fmean(v) for t, v in sorted(grouped.items())}
    return {"by_type": {t: {"n": len(grouped[t]), "ev_recall": round(m, 4)} for t, m in means.items()},
            "all": round(statistics.fmean(means.values()), 4)}


def ceiling(questions: Sequence[ClaimQuestion], chunk_texts: Sequence[str]) -> dict[str, Any]:
    """The lexical score with every chunk of the corpus retrieved."""
    every = tuple(chunk_texts)
    recalls = [recall(v) for v in LexicalJudge().judge([ClaimsToJudge(q.claims, every) for q in questions])]
    return {**by_type(questions, recalls), "questions": dict(zip([q.id for q in questions], recalls, strict=True))}


def by_half(questions: Sequence[ClaimQuestion], scored: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A whole-set score (a method's or the ceiling's, with its per-question recalls) regrouped into
    halves A and B, so one run reports both."""
    halves: dict[str, dict[str, Any]] = {}
    for half in HALVES:
        chosen = select_half(questions, half, lambda q: q.half_key)
        halves[half] = by_type(chosen, [scored["questions"][q.id] for q in chosen])
    return halves


def evaluate_claims(hg: HopGraph, questions: Sequence[ClaimQuestion], method: str, top: int, judge: Judge,
                    quiet: bool) -> dict[str, Any]:
    """One method: its top-k chunks for every question, judged claim by claim."""
    items, latencies = [], []
    for question in bar_over(questions, method, quiet, total=len(questions)):
        started = time.perf_counter()
        hits = hg.search(question.text, method=method, top=top).hits
        latencies.append((time.perf_counter() - started) * 1000)
        items.append(ClaimsToJudge(question.claims, tuple(hit.text for hit in hits)))
    recalls = [recall(v) for v in judge.judge(items)]
    return {**by_type(questions, recalls), "questions": dict(zip([q.id for q in questions], recalls, strict=True)),
            "ms_per_query": {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95)}}


def load_claim_set(data: Path, corpus: Path | None, half: str | None, limit: int | None, store: str | None,
                   settings: Settings) -> tuple[list[ClaimQuestion], list[Document], str]:
    """The questions of `half` (the first `limit`), the corpus's documents, and the store: the one
    given, else the cached one keyed by both files' content and the settings that shape the index."""
    if corpus is None:
        raise InputError(f"{data}: an evidence-claim set needs its documents: give --corpus (a JSON list of "
                         "{title, text})")
    check_source(settings.names_from)
    questions, data_hash = load_claim_questions(data)
    questions = select_half(questions, half, lambda q: q.half_key)[:limit]
    if not questions:
        raise InputError(f"{data}: no question falls in half {half}")
    docs, corpus_hash = corpus_documents(corpus)
    return questions, docs, store or default_store(data_hash, corpus_hash, settings)


def run_claim_eval(data: Path, corpus: Path | None, methods: Sequence[str], top: int = 5, limit: int | None = None,
                   store: str | None = None, settings: Settings | None = None, quiet: bool = True,
                   half: str | None = None, judge: str = "lexical") -> dict[str, Any]:
    """Index the corpus (cached, keyed as `run_eval` keys it) and score every method's evidence recall
    on the questions of `half` (all when None), beside the ceiling."""
    for method in methods:
        if method != AUTO:
            parse_method(method)
    check_judge(judge)
    settings = settings or Settings()
    questions, docs, store = load_claim_set(data, corpus, half, limit, store, settings)
    with HopGraph(store, settings, quiet=quiet) as hg:
        index_seconds = build_index(hg, docs)
        judging = JUDGES[judge](hg)
        results = {m: evaluate_claims(hg, questions, m, top, judging, quiet) for m in methods}
        spent = hg.llm_usage.get(JUDGE_STEP)
        top_ceiling = ceiling(questions, hg.search_index.table.texts)
        location = hg.store.location
    return {"n_questions": len(questions), "n_documents": len(docs), "top": top, "half": half, "judge": judge,
            "names_from": settings.names_from, "index_seconds": index_seconds, "ceiling": top_ceiling,
            "methods": results, "judge_llm": None if spent is None else asdict(spent), "store": location}


def format_claim_table(result: dict[str, Any]) -> str:
    """One row per method, then the ceiling: ev_recall per type and `all` (the unweighted mean)."""
    types = list(result["ceiling"]["by_type"])
    header = ["method", *types, "all", "p50 ms"]
    rows = [[method, *[f"{m['by_type'][t]['ev_recall']:.3f}" for t in types], f"{m['all']:.3f}",
             f"{m['ms_per_query']['p50']:.1f}"] for method, m in result["methods"].items()]
    top = result["ceiling"]
    rows.append(["ceiling (every chunk, lexical)", *[f"{top['by_type'][t]['ev_recall']:.3f}" for t in types],
                 f"{top['all']:.3f}", "-"])
    counts = ", ".join(f"{t}={v['n']}" for t, v in top["by_type"].items())
    half = f", half {result['half'].upper()}" if result.get("half") else ""
    spent = result.get("judge_llm")
    cost = f" ({spent['calls']} calls, {spent['cached']} cached, {spent['tokens_in']} tokens in)" if spent else ""
    return text_table(f"{result['n_questions']} questions ({counts}){half}, {result['n_documents']} documents, "
                      f"top {result['top']}, ev_recall judged {result['judge']}{cost}, names from "
                      f"{result.get('names_from', '?')}", header, rows)
