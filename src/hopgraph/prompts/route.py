"""Routing one question: lookup, multi-hop or global — asked only when the cheap signals disagree."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SYSTEM = """You classify a question put to a document collection by how it must be answered.
- lookup: one fact about one thing, stated in one passage ("When was Acme founded?").
- multihop: the answer needs two or more connected facts: a bridge ("Where was the director of
  Big Stone Gap born?") or a comparison of named things ("Which is older, A or B?").
- global: a question about the collection as a whole — themes, trends, what keeps recurring,
  a summary across many documents ("What risks keep showing up across the audits?").
Give the kind and one short reason. Answer with JSON only."""


class RouteReply(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    kind: Literal["lookup", "multihop", "global"]
    reason: str = Field(max_length=200)


def messages(question: str, signals: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nWhat a rule-based reader noticed: {signals}"}]
