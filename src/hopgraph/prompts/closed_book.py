"""The floor of the answer evaluation: the model answers from what it knows, with no retrieval."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SYSTEM = """Answer the question from your own knowledge, in as few words as possible: a name, a
date, a number, yes or no. If you do not know, answer "unknown". Answer with JSON only."""


class ClosedBookAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str = Field(max_length=500)


def messages(question: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"Question: {question}"}]
