"""Answering a question from ranked search hits: a short answer that cites the chunks it used."""

from __future__ import annotations

from typing import Any

from hopgraph.prompts.answer import Answer

SYSTEM = """Answer the question from the numbered chunks only, in as few words as the question
needs: a name, a date, a number, yes or no, or a short phrase, not a sentence. Each chunk is
marked [chunk N]; they are ranked, most relevant first. The answer may need two chunks: one names
a person, place or thing and another says more about it. Cite every chunk you use by its number in
`citations`. If the chunks do not answer the question, say so in `answer` and cite nothing.
Answer with JSON only."""

__all__ = ["SYSTEM", "Answer", "messages"]


def messages(question: str, chunks: dict[int, str]) -> list[dict[str, Any]]:
    texts = "\n\n".join(f"[chunk {chunk_id}]\n{text}" for chunk_id, text in chunks.items())
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nChunks:\n{texts}"}]
