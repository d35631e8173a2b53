"""The answer judge of `hopgraph eval --answers` on a set with reference answers (GraphRAG-Bench's
novels): does a written answer state what the reference answer states?

GraphRAG-Bench splits both answers into statements and classifies each (true positive, false
positive, false negative). A small local model splits statements unreliably, so this asks one
graded question per answer instead: one call, one verdict, one cache entry.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

SYSTEM = """You grade an answer to a question against the reference answer. Reply with JSON only:
verdict is "correct" when the answer states what the reference states (in any words; extra detail
is fine when it does not contradict the reference), "partly" when it states some of it and
contradicts none of it, "wrong" when it misses the reference's point, contradicts it, or does not
answer."""

SCORES = {"correct": 1.0, "partly": 0.5, "wrong": 0.0}


class AnswerGrade(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    verdict: Literal["correct", "partly", "wrong"]

    @property
    def score(self) -> float:
        return SCORES[self.verdict]


def messages(question: str, reference: str, answer: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nReference answer: {reference}\n\n"
                                        f"Answer to grade: {answer}"}]
