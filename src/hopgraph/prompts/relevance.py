"""The relevance test of lazy global search: does this one chunk hold material for the question?

Asked once per tested chunk, so the reply is tiny (a verdict and a score, no explanation): the
test budget, not the answer, is where lazy search spends most of its calls.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SYSTEM = """You judge whether a text chunk from a document collection helps answer a question.
The question may be broad (the main themes, the most important events): then a chunk is relevant
when an answer covering the whole collection would use something it says. A chunk that only
shares a word with the question is not relevant.
Reply with JSON only: relevant (true or false) and score, from 0 (unrelated) to 10 (central to
the answer)."""


class RelevanceReply(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    relevant: bool
    score: int = Field(ge=0, le=10)


def messages(question: str, chunk_text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nChunk:\n{chunk_text}"}]
