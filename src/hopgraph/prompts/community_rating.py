"""Dynamic community selection: how relevant is each community report (0-10) to a question.

Rated in batches (several short reports per call), coarse communities first: only the children of
a relevant community are rated next, so whole branches of the tree are never read.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hopgraph.prompts import question_over_reports

MAX_RATED = 20  # reports per call: the reply lists one rating for each

SYSTEM = """You decide which community reports of a document collection are worth reading to
answer a question. Each report is marked [report N] with its title and summary.
For every report give `report` (its number N) and `relevance`: from 0 (nothing to do with the
question) to 10 (central to answering it). Rate every report once. Answer with JSON only."""


class Rating(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    report: int
    relevance: int = Field(ge=0, le=10)


class RatingReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ratings: list[Rating] = Field(max_length=MAX_RATED)


def messages(question: str, reports: list[str]) -> list[dict[str, Any]]:
    return question_over_reports(SYSTEM, question, reports)
