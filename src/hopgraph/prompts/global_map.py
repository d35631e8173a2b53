"""Global search, map step: one batch of community reports answers the question as scored points.

The score (0-100) is how helpful a point is for answering; the reduce step keeps the best points
that fit its context, and a point scored 0 is dropped there (Microsoft GraphRAG's map-reduce).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hopgraph.prompts import question_over_reports

MAX_POINTS = 5

SYSTEM = """You help answer a question about a document collection from a batch of community
reports. Each report is marked [report N]; its findings cite text chunks as [chunks a, b].
Use only the reports. List up to 5 points that help answer the question, each with:
- description: one to three sentences, grounded in the reports;
- score: how helpful the point is for answering the question, from 0 (not at all) to 100 (it
  answers the question);
- chunk_ids: the chunk numbers that the reports cite for what the point says.
If the reports do not help, return a single point with score 0. Do not invent facts or chunk
numbers. Answer with JSON only."""


class MapPoint(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    description: str = Field(max_length=800)
    score: int = Field(ge=0, le=100)
    chunk_ids: list[int] = Field(max_length=8)


class MapReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    points: list[MapPoint] = Field(max_length=MAX_POINTS)


def messages(question: str, reports: list[str]) -> list[dict[str, Any]]:
    return question_over_reports(SYSTEM, question, reports)
