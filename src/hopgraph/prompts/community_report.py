"""A report on one community of the knowledge graph: title, summary, findings with chunk citations,
and an importance rating — what global search later reads instead of the raw chunks."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MAX_FINDINGS = 8

SYSTEM = """You write a report on one community of a knowledge graph: a group of entities that are
closely related in a document collection. Use only the material given. The material lists the
entities, the relations between them and text chunks marked [chunk N] (or, for a large community,
the reports of its sub-communities, whose findings cite chunks the same way).
Write:
- title: a short name for the community, naming its most important entities;
- summary: what the community is about and how its entities relate, in 2-4 sentences;
- rating: how important the community is to the whole collection, from 0 (trivial) to 10 (central);
- rating_explanation: one sentence;
- findings: up to 8 key insights, each a one-line summary and a short explanation grounded in the
  material, citing the chunk numbers that support it in chunk_ids.
Do not invent facts or chunk numbers. Answer with JSON only."""


class FindingReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    summary: str = Field(max_length=300)
    explanation: str = Field(max_length=1200)
    chunk_ids: list[int] = Field(max_length=8)


class CommunityReportReply(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    title: str = Field(max_length=200)
    summary: str = Field(max_length=1500)
    rating: float = Field(ge=0, le=10)
    rating_explanation: str = Field(max_length=400)
    findings: list[FindingReply] = Field(max_length=MAX_FINDINGS)


def messages(material: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"Material:\n{material}"}]
