"""The evidence judge of `hopgraph eval --judge llm`: can one reference claim be attributed to the
retrieved text? GraphRAG-Bench's evidence recall asks its judge the same question, claim by claim.

One claim per call, so a reply is a single verdict (nothing to miscount), and each verdict is its own
cache entry: an interrupted run resumes claim by claim.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

SYSTEM = """You check evidence. Given retrieved passages and one claim, decide whether the claim can
be attributed to the passages: they state it, or it follows directly from what they state. A claim
that is only plausible, or that needs knowledge the passages do not give, is not attributable.
Reply with JSON only: attributable (true or false)."""


class AttributionReply(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    attributable: bool


def messages(claim: str, passages: list[str]) -> list[dict[str, Any]]:
    text = "\n\n".join(f"[{i}] {passage}" for i, passage in enumerate(passages, start=1))
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Passages:\n{text}\n\nClaim: {claim}"}]
