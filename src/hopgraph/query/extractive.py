"""The offline answer of a search: the sentences of the hits that best answer the question, cited.

With no LLM, `ask` in `search` and `auto` modes still ends in an answer: every sentence of the hits
(text/sentences.py, the one splitter) is scored by its embedding's cosine with the question's — a
question-aware similarity, not the sentence's position — and the best one is taken, then the best
of *another* hit. Why two hits: a two-hop answer is split over two passages (the film's paragraph
names the director, hers says where she lives), and the second-best sentence of the same passage
usually repeats the first. Each sentence cites its chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from hopgraph.query.answer import Answer
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import split_sentences

SENTENCES = 2  # sentences in an extractive answer
MAX_CANDIDATES = 200  # sentences scored at most (the hits' first ones, in rank order): a bound on cost

Embed = Callable[[Sequence[str]], np.ndarray]  # texts → one normalised row each


def extractive_answer(question: str, hits: Sequence[Hit], embed: Embed, sentences: int = SENTENCES) -> Answer:
    """The `sentences` best sentences of the hits, each from a different hit, in score order."""
    candidates = [(rank, sentence) for rank, hit in enumerate(hits) for sentence in split_sentences(hit.text)]
    candidates = candidates[:MAX_CANDIDATES]
    if not candidates:
        return Answer("No passage was found to answer from.")
    vectors = embed([question, *(sentence for _, sentence in candidates)])
    scores = vectors[1:] @ vectors[0]
    chosen: list[int] = []
    for index in np.argsort(-scores, kind="stable").tolist():
        if all(candidates[index][0] != candidates[other][0] for other in chosen):
            chosen.append(index)
        if len(chosen) == sentences:
            break
    lines = [f'"{candidates[i][1]}" [chunk {hits[candidates[i][0]].chunk_id}]' for i in chosen]
    return Answer("\n".join(lines), list(dict.fromkeys(hits[candidates[i][0]].chunk_id for i in chosen)))
