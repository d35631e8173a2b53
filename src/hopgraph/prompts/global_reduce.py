"""Global search, reduce step: the best-scored points of the map step, packed into one context,
become the final answer with chunk citations."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SYSTEM = """You write the final answer to a question about a document collection. Analysts have
read its community reports and found the points below, most helpful first, each with a
helpfulness score from 0 to 100 and the text chunks it rests on as [chunks a, b].
Use only these points; prefer the more helpful ones; merge what they say into one answer.
Cite the chunk numbers that support your answer in `citations` (only numbers given below).
If the points do not answer the question, say so. Answer with JSON only."""


class ReduceReply(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    answer: str = Field(max_length=4000)
    citations: list[int] = Field(max_length=40)


def messages(question: str, points: list[str]) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nPoints:\n" + "\n".join(points)}]
