"""One step of iterative retrieval (IRCoT-style): read the chunks found so far, then either answer
or name the next search — usually the bridge entity the chunks have just revealed."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SYSTEM = """You answer a question by searching a collection step by step. You are given the
question, the searches already run, and the numbered chunks they found, each marked [chunk N].
First write in `known` one sentence of what the chunks establish that matters for the question.
If the chunks answer the question, put the answer in `answer` in as few words as the question
needs (a name, a date, a number, yes or no, or a short phrase), cite the chunks you used by number
in `citations`, and leave `next_search` empty. Otherwise leave `answer` empty, cite nothing, and
write in `next_search` a short search for what is still missing: name the person, place or thing
the chunks revealed and what you need to know about it (for example "Adriana Trigiani home city").
Never repeat a search already run. Answer with JSON only."""


class IterativeStep(BaseModel):
    model_config = ConfigDict(extra="forbid")  # strict structured output: no extras, all required

    known: str = Field(max_length=1000)
    answer: str = Field(max_length=500)
    citations: list[int] = Field(max_length=30)
    next_search: str = Field(max_length=300)


def messages(question: str, searches: list[str], chunks: dict[int, str]) -> list[dict[str, Any]]:
    ran = "\n".join(f"- {search}" for search in searches)
    texts = "\n\n".join(f"[chunk {chunk_id}]\n{text}" for chunk_id, text in chunks.items())
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Question: {question}\n\nSearches run:\n{ran}\n\nChunks:\n{texts}"}]
