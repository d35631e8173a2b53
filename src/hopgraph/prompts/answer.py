"""Answering from graph evidence: relation chains plus their source chunks, with chunk citations."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SYSTEM = """Answer the question from the evidence only. The evidence is a list of relation chains
found in a knowledge graph and the text chunks they come from, each chunk marked [chunk N].
Cite every chunk you use by its number in `citations`. If the evidence does not answer the
question, say so in `answer` and cite nothing. Answer with JSON only."""


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    answer: str = Field(max_length=2000)
    citations: list[int] = Field(max_length=30)


def messages(question: str, chains: list[str], chunks: dict[int, str]) -> list[dict[str, Any]]:
    evidence = "\n".join(f"- {chain}" for chain in chains) or "(no relation chains)"
    texts = "\n\n".join(f"[chunk {chunk_id}]\n{text}" for chunk_id, text in chunks.items())
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nRelation chains:\n{evidence}\n\nChunks:\n{texts}"}]
