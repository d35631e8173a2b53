"""The answer of lazy global search: one call over the chunks that passed the relevance tests.

Unlike `answer` (relation chains plus their chunks), the evidence here is raw passages from many
parts of the collection, most relevant first, and the question is often broad: the prompt asks for
an answer that covers them rather than the one passage that matches best.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SYSTEM = """Answer the question from the text chunks only. The chunks come from different parts of
a document collection and were judged relevant to the question; each is marked [chunk N], most
relevant first. For a broad question (themes, main points) cover what the chunks show across the
collection, not only the first chunk. Cite every chunk you use by its number in `citations`. If the
chunks do not answer the question, say so in `answer` and cite nothing. Answer with JSON only."""


class LazyAnswerReply(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    answer: str = Field(max_length=3000)
    citations: list[int] = Field(max_length=30)


def messages(question: str, chunks: dict[int, str]) -> list[dict[str, Any]]:
    texts = "\n\n".join(f"[chunk {chunk_id}]\n{text}" for chunk_id, text in chunks.items())
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nChunks:\n{texts}"}]
