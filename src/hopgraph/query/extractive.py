"""Extractive answers: the sentences of retrieved chunks that best answer the question, cited.

With no LLM, `ask` in `search` and `auto` modes still ends in an answer: every sentence of the hits
(text/sentences.py, the one splitter) is scored by its embedding's cosine with the question's — a
question-aware similarity, not the sentence's position — and the best one is taken, then the best
of *another* hit. Why two hits: a two-hop answer is split over two passages (the film's paragraph
names the director, hers says where she lives), and the second-best sentence of the same passage
usually repeats the first. Each sentence cites its chunk. Lazy search's offline answer uses the
same per-chunk choice (`best_sentences`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from hopgraph.query.writers import Draft
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import stated_sentences

SENTENCES = 2  # sentences in an extractive answer
MAX_CANDIDATES = 200  # sentences scored at most (the hits' first ones, in rank order): a bound on cost

Embed = Callable[[Sequence[str]], np.ndarray]  # texts → one normalised row each


def best_sentences(texts: Sequence[str], question_vector: np.ndarray, embed: Embed, min_words: int = 1,
                   limit: int | None = None) -> list[tuple[str, float] | None]:
    """For each text, its sentence closest to the question and that cosine (one embedding batch).
    Headings and questions are never quoted; sentences under `min_words` words are passed over
    unless a text has no other (then its whole text stands in); only the first `limit` sentences
    overall are scored; a text with none is None."""
    groups = [_candidates(text, min_words) for text in texts]
    candidates = [(i, sentence) for i, group in enumerate(groups) for sentence in group][:limit]
    best: list[tuple[str, float] | None] = [None] * len(texts)
    if not candidates:
        return best
    scores = embed([sentence for _, sentence in candidates]) @ question_vector
    for (i, sentence), score in zip(candidates, scores.tolist(), strict=True):
        current = best[i]
        if current is None or score > current[1]:
            best[i] = (sentence, score)
    return best


def _candidates(text: str, min_words: int) -> list[str]:
    """A text's stated sentences of `min_words`+ words, else its whole text; none when it states
    nothing (empty, a heading alone: "# Company Profile: …", or questions alone)."""
    stated = stated_sentences(text)
    return [s for s in stated if len(s.split()) >= min_words] or ([" ".join(text.split())] if stated else [])


def extractive_answer(question: str, hits: Sequence[Hit], embed: Embed, sentences: int = SENTENCES) -> Draft:
    """The `sentences` best sentences of the hits, each from a different hit, in score order."""
    per_hit = best_sentences([hit.text for hit in hits], embed([question])[0], embed, limit=MAX_CANDIDATES)
    ranked = sorted(((found[1], rank, found[0]) for rank, found in enumerate(per_hit) if found is not None),
                    key=lambda item: -item[0])[:sentences]
    if not ranked:
        return Draft("No passage was found to answer from.")
    lines = [f'"{sentence}" [chunk {hits[rank].chunk_id}]' for _, rank, sentence in ranked]
    return Draft("\n".join(lines), list(dict.fromkeys(hits[rank].chunk_id for _, rank, _ in ranked)))
