"""Evaluation on multi-hop QA sets: retrieval (both gold passages found, per question type) and
answers (exact match and token F1 of what `ask` answers, with the calls and tokens it spent)."""

from hopgraph.eval.questions import Question, load_questions, pooled_corpus
from hopgraph.eval.retrieval import (
    build_index,
    corpus_documents,
    default_store,
    format_table,
    percentile,
    run_eval,
    score_retrieval,
    summarise,
)

__all__ = [
    "Question",
    "build_index",
    "corpus_documents",
    "default_store",
    "format_table",
    "load_questions",
    "percentile",
    "pooled_corpus",
    "run_eval",
    "score_retrieval",
    "summarise",
]
