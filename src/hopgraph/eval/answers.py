"""Answer evaluation: exact match and token F1 of what `ask` answers, per question type and method,
with the LLM calls, tokens and seconds each question spent.

Methods:
  none       the model alone, no retrieval (the floor: what it answers from memory)
  hybrid     hybrid search, then the answer from its hits
  auto       the default `ask` (the router's choice)
  iterative  retrieve, let the model name the next search, repeat (IRCoT)
  short      auto's hits, then the no-LLM short answer (query/short/): a span, or nothing; with the
             median milliseconds of the search and of the short answer, measured in the same run

With an LLM configured, hybrid and auto answers are the model's; without one they are the offline
extractive answers (two quoted sentences), whose exact match is near zero by construction, so the
share whose text holds the gold answer (`answer_in`) is the number to read; `none` and `iterative`
need a model and are skipped, saying so. `context_has` is the share whose retrieved text holds the
gold answer at all: the ceiling for any reader of those hits.
"""

from __future__ import annotations

import re
import statistics
import string
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.questions import Question
from hopgraph.eval.retrieval import build_index, load_eval_set
from hopgraph.eval.tables import text_table
from hopgraph.llm import LLMCache, RecordingCache, ReplayLLMCache, recorded_model, usage_since
from hopgraph.progress import bar_over
from hopgraph.prompts import closed_book
from hopgraph.query.short import short_answer_of
from hopgraph.query.writers import NO_ANSWER
from hopgraph.records.answers import Answer

ANSWER_METHODS = ("none", "hybrid", "auto", "iterative", "short")
NEEDS_MODEL = {"none": "a closed-book answer is the model's", "iterative": "iterative retrieval asks a model"}
REPLAY_URL = "http://127.0.0.1:9/v1"  # never reached: a strict replay answers from its file or fails
_CITATION = re.compile(r"\[chunk \d+\]")
ASKED_AS = {"hybrid": ("search", "hybrid"), "auto": ("auto", None), "iterative": ("iterative", None)}  # mode, method


def normalize_answer(text: str) -> str:
    """HotpotQA's official normalisation (hotpot_evaluate_v1.py): lower case, no punctuation, no
    articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    """Token F1 as HotpotQA scores it: a yes/no/noanswer on either side must match exactly."""
    predicted, wanted = normalize_answer(prediction), normalize_answer(gold)
    special = ("yes", "no", "noanswer")
    if (predicted in special or wanted in special) and predicted != wanted:
        return 0.0
    common = sum((Counter(predicted.split()) & Counter(wanted.split())).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted.split()), common / len(wanted.split())
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class Scored:
    """One question answered by one method: its scores and its spend."""

    id: str
    type: str
    answer: str
    em: float
    f1: float
    answer_in: float  # the gold answer is inside the answer's text
    context_has: float  # the gold answer is inside the text the answer was made from
    llm_calls: int
    tokens_in: int
    tokens_out: int
    seconds: float
    search_ms: float = 0.0  # `short`: the search's milliseconds, and the short answer's after it
    short_ms: float = 0.0
    short_cpu_ms: float = 0.0  # the short answer's CPU time: what it costs on a machine others share


def check_answer_methods(methods: Sequence[str]) -> None:
    from hopgraph.errors import InputError

    unknown = [m for m in methods if m not in ANSWER_METHODS]
    if unknown:
        raise InputError(f"unknown answer method {', '.join(unknown)}; use {', '.join(ANSWER_METHODS)}")


def answer_question(hg: HopGraph, question: Question, method: str, top: int) -> Scored:
    """Ask one question in one method and score what came back."""
    if method == "none":
        return _closed_book(hg, question)
    if method == "short":
        return _short(hg, question, top)
    text, asked = written_answer(hg, question.text, method, top)
    context = " ".join(hit.text for hit in asked.hits).lower()
    spend = asked.used
    return Scored(question.id, question.type, text, exact_match(text, question.answer),
                  token_f1(text, question.answer), float(question.answer.lower() in text.lower()),
                  float(question.answer.lower() in context), spend.llm_calls, spend.tokens_in, spend.tokens_out,
                  spend.seconds.get("total", 0.0))


def written_answer(hg: HopGraph, question: str, method: str, top: int) -> tuple[str, Answer]:
    """The answer `method` ("hybrid", "auto" or "iterative") writes, without its chunk citations
    ("" when it has none), and the whole `Answer` it came in."""
    mode, chosen = ASKED_AS[method]
    asked = hg.ask(question, mode, chosen, top)
    return "" if asked.text.startswith(NO_ANSWER) else " ".join(_CITATION.sub(" ", asked.text).split()), asked


def _short(hg: HopGraph, question: Question, top: int) -> Scored:
    """auto's hits without an answer written, then the short answer of them, each timed."""
    asked = hg.ask(question.text, "auto", None, top, answer=False)
    started, cpu = time.perf_counter(), time.process_time()
    found = short_answer_of(question.text, asked.hits)
    short_ms, short_cpu_ms = (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
    text = found.text if found is not None else ""
    context = " ".join(hit.text for hit in asked.hits).lower()
    search_ms = asked.retrieval.ms if asked.retrieval is not None else 0.0
    return Scored(question.id, question.type, text, exact_match(text, question.answer),
                  token_f1(text, question.answer), float(bool(text) and question.answer.lower() in text.lower()),
                  float(question.answer.lower() in context), 0, 0, 0, round((search_ms + short_ms) / 1000, 4),
                  round(search_ms, 3), round(short_ms, 3), round(short_cpu_ms, 3))


def _closed_book(hg: HopGraph, question: Question) -> Scored:
    client = hg.llm()
    before, started = client.usage, time.perf_counter()
    reply = client.complete_json(closed_book.messages(question.text), closed_book.ClosedBookAnswer,
                                 max_tokens=64, step="closed_book")
    used = usage_since(before, client.usage)
    text = reply.value.answer.strip()
    return Scored(question.id, question.type, text, exact_match(text, question.answer),
                  token_f1(text, question.answer), float(question.answer.lower() in text.lower()), 0.0,
                  used.calls, reply.tokens_in, reply.tokens_out, round(time.perf_counter() - started, 4))


def evaluate_answers(hg: HopGraph, questions: Sequence[Question], methods: Sequence[str], top: int,
                     quiet: bool) -> dict[str, Any]:
    """Every method over every question: per-type and overall means, and each question's row.
    A method that needs a model is skipped, with the reason, when none is configured."""
    check_answer_methods(methods)
    results: dict[str, Any] = {}
    for method in methods:
        if method in NEEDS_MODEL and not hg.has_llm:
            results[method] = {"skipped": f"needs an LLM ({NEEDS_MODEL[method]}): set llm_url and llm_model"}
            continue
        rows = [answer_question(hg, q, method, top) for q in bar_over(questions, method, quiet, total=len(questions))]
        results[method] = summarise_answers(rows)
    return results


def summarise_answers(rows: Sequence[Scored]) -> dict[str, Any]:
    by_type: dict[str, list[Scored]] = defaultdict(list)
    for row in rows:
        by_type[row.type].append(row)
    return {"by_type": {t: _means(group) for t, group in sorted(by_type.items())}, "all": _means(rows),
            "questions": [asdict(row) for row in rows]}


def _means(rows: Sequence[Scored]) -> dict[str, float | int]:
    keys = ("em", "f1", "answer_in", "context_has", "llm_calls", "tokens_in", "tokens_out", "seconds")
    medians = {f"p50_{key}": round(statistics.median(getattr(r, key) for r in rows), 3) if rows else 0.0
               for key in ("search_ms", "short_ms", "short_cpu_ms")}
    return {"n": len(rows), **{key: round(statistics.fmean(getattr(r, key) for r in rows), 4) for key in keys},
            **medians}


def run_answer_eval(data: Path, corpus: Path | None = None, methods: Sequence[str] = ANSWER_METHODS,
                    top: int = 5, limit: int | None = None, store: str | None = None,
                    settings: Settings | None = None, quiet: bool = True, record: Path | None = None,
                    replay: Path | None = None, half: str | None = None) -> dict[str, Any]:
    """Index the corpus (cached, as `run_eval` does) and score the answers of every method.

    The model's replies are cached in the store, so a re-run costs nothing. `record` also writes
    every reply this run used to a file; `replay` answers from such a file alone (no server: a
    reply it lacks is an error), so CI can re-score a recorded run offline."""
    check_answer_methods(methods)
    settings, cache = replayed(settings or Settings(), replay)
    qa = load_eval_set(data, corpus, limit, store, settings, half)
    hg = HopGraph(qa.store, settings, quiet=quiet, llm_cache=cache)
    with hg:
        index_seconds = build_index(hg, qa.docs)
        cache = recording(hg, cache, record)
        answers = evaluate_answers(hg, qa.questions, methods, top, quiet)
    recorded = cache.record_to(record) if record is not None and isinstance(cache, RecordingCache) else None
    return {"n_questions": len(qa.questions), "n_paragraphs": len(qa.docs), "top": top,
            "reader": f"llm:{settings.llm_model}" if settings.llm_model else "extractive (no LLM configured)",
            "index_seconds": index_seconds, "answers": answers, "replies_recorded": recorded}


def replayed(settings: Settings, replay: Path | None) -> tuple[Settings, LLMCache | None]:
    """With `replay`, settings that name the recorded model and a cache that answers from the file
    alone (no server: a reply it lacks is an error); without it, the settings as they are."""
    if replay is None:
        return settings, None
    settings = replace(settings, llm_url=settings.llm_url or REPLAY_URL, llm_model=recorded_model(replay))
    return settings, ReplayLLMCache(replay, strict=True)


def recording(hg: HopGraph, cache: LLMCache | None, record: Path | None) -> LLMCache | None:
    """The cache the run answers through: with `record` (and no replay), one that also keeps every
    reply used, for `record_to`."""
    if record is not None and cache is None:
        hg.llm_cache = cache = RecordingCache(hg.store.reply_cache())
    return cache


def format_answer_table(result: dict[str, Any]) -> str:
    """One row per method: EM/F1 per question type and overall, then the spend per question."""
    methods = result["answers"]
    types = sorted({t for m in methods.values() for t in m.get("by_type", {})})
    header = ["method", *[f"{t} EM/F1" for t in types], "all EM", "all F1", "ans in answer", "ans in context",
              "calls/q", "tokens in/q", "tokens out/q", "s/q"]
    lines, notes = [], []
    for method, m in methods.items():
        if "skipped" in m:
            notes.append(f"{method}: skipped — {m['skipped']}")
            continue
        a = m["all"]
        if method == "short":
            notes.append(f"short: p50 search {a['p50_search_ms']:.1f} ms, p50 short answer {a['p50_short_ms']:.1f} ms "
                         f"over it ({a['p50_short_cpu_ms']:.1f} ms CPU), same run")
        cells = [f"{m['by_type'][t]['em']:.2f}/{m['by_type'][t]['f1']:.2f}" if t in m["by_type"] else "-"
                 for t in types]
        lines.append([method, *cells, f"{a['em']:.3f}", f"{a['f1']:.3f}", f"{a['answer_in']:.3f}",
                      f"{a['context_has']:.3f}", f"{a['llm_calls']:.1f}", f"{a['tokens_in']:.0f}",
                      f"{a['tokens_out']:.0f}", f"{a['seconds']:.2f}"])
    reader = result.get("reader", "?")
    return text_table(f"{result['n_questions']} questions, top {result['top']}, answers by {reader}", header, lines,
                      notes)
