"""DRIFT search: a primer over the most relevant community reports (draft answer + follow-up
questions), an answer per follow-up from local-search evidence (which may raise new follow-ups),
and a final answer over all of it. Citations are chunk numbers throughout."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MAX_FOLLOWUPS = 5

PRIMER = """You start answering a question about a document collection from its most relevant
community reports, each marked [report N], whose findings cite text chunks as [chunks a, b].
Write:
- answer: a draft answer from the reports only (2-5 sentences);
- citations: the chunk numbers the draft rests on (only numbers that appear in the reports);
- followups: up to 5 specific questions whose answers, looked up in the text, would complete or
  check the draft, each with a score from 0 to 100 for how much it would improve the answer.
Answer with JSON only."""

FOLLOWUP = """You answer one follow-up question, asked to complete an answer to a main question,
from text chunks marked [chunk N] found by a search of the knowledge graph. Use only the chunks.
Write `answer` (1-3 sentences, or say the chunks do not tell), `citations` (chunk numbers you
used), and `followups`: up to 5 further questions worth looking up, each scored 0-100 (none if the
answer is complete). Answer with JSON only."""

FINAL = """You write the final answer to a question about a document collection from a draft answer
and the answers to follow-up questions, most useful first, each citing text chunks as
[chunks a, b]. Merge them into one answer; where they disagree, prefer the follow-up answers
(they come from the text itself). Cite the chunk numbers that support the answer in `citations`
(only numbers given below). Answer with JSON only."""


class FollowUpQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    question: str = Field(max_length=300)
    score: int = Field(ge=0, le=100)


class PrimerReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str = Field(max_length=2500)
    citations: list[int] = Field(max_length=30)
    followups: list[FollowUpQuestion] = Field(max_length=MAX_FOLLOWUPS)


class FollowUpReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str = Field(max_length=1500)
    citations: list[int] = Field(max_length=20)
    followups: list[FollowUpQuestion] = Field(max_length=MAX_FOLLOWUPS)


class FinalReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str = Field(max_length=4000)
    citations: list[int] = Field(max_length=40)


def primer_messages(question: str, reports: list[str]) -> list[dict[str, Any]]:
    return [{"role": "system", "content": PRIMER},
            {"role": "user", "content": f"Question: {question}\n\nReports:\n\n" + "\n\n".join(reports)}]


def followup_messages(question: str, followup: str, chunks: dict[int, str]) -> list[dict[str, Any]]:
    texts = "\n\n".join(f"[chunk {chunk_id}]\n{text}" for chunk_id, text in chunks.items()) or "(no chunks found)"
    body = f"Main question: {question}\nFollow-up question: {followup}\n\nChunks:\n{texts}"
    return [{"role": "system", "content": FOLLOWUP}, {"role": "user", "content": body}]


def final_messages(question: str, draft: str, answers: list[str]) -> list[dict[str, Any]]:
    body = f"Question: {question}\n\nDraft answer:\n{draft}\n\nFollow-up answers:\n" + ("\n".join(answers) or "(none)")
    return [{"role": "system", "content": FINAL}, {"role": "user", "content": body}]
