"""Iterative retrieval (IRCoT, Trivedi et al. 2023): the cheaper alternative to a graph.

retrieve → the LLM reads every hit found so far and writes either the answer or the next search
(the bridge entity it now knows) → retrieve again with that search, up to `steps` retrievals. A
model that never answers gets one last answer call over everything found. Each step is traced:
the search run, the chunks it added, and what the model said. No LLM, no iterative retrieval:
the model is the one choosing the next search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hopgraph.errors import InputError
from hopgraph.llm import LLMClient
from hopgraph.prompts import iterative_step
from hopgraph.query.writers import Draft, checked_citations, llm_answer_from_hits, refused
from hopgraph.records.answers import Step
from hopgraph.records.retrieval import Hit, Retrieval, TraceStep
from hopgraph.text.tokens import pack

Search = Callable[[str], Retrieval]  # a search text → ranked chunks


@dataclass(frozen=True)
class IterativeBudget:
    steps: int = 3  # retrievals at most (the first is the question itself)
    context_tokens: int = 3000  # of hit text the model reads per step, in the order found

    def __post_init__(self) -> None:
        if self.steps < 1:
            raise InputError(f"iterative steps must be at least 1, got {self.steps}")


@dataclass
class IterativeResult:
    answer: Draft
    retrieval: Retrieval  # every hit found, in the order found (first search first)
    steps: list[Step] = field(default_factory=list)


def iterative_search(question: str, search: Search, client: LLMClient, budget: IterativeBudget) -> IterativeResult:
    """Search, read, search again with what was learnt, until the model answers or the steps run out."""
    hits: list[Hit] = []
    trace: list[TraceStep] = []
    steps: list[Step] = []
    query = question
    for number in range(1, budget.steps + 1):
        found = search(query)
        trace += [TraceStep(f"step {number}: {t.stage}", t.ms, t.detail) for t in found.trace]
        seen = {hit.chunk_id for hit in hits}
        added = [hit for hit in found.hits if hit.chunk_id not in seen]
        hits += added
        given = _given(hits, budget.context_tokens)
        reply = client.complete_json(iterative_step.messages(question, [s.search for s in steps] + [query], given),
                                     iterative_step.IterativeStep, max_tokens=300, step="iterative").value
        steps.append(Step(query, [hit.chunk_id for hit in added], reply.known.strip(), reply.answer.strip(),
                          reply.next_search.strip()))
        if reply.answer.strip() and not refused(reply.answer):
            citations, dropped = checked_citations(reply.citations, given)
            text = Draft(reply.answer.strip(), citations, f"llm:{client.model}", dropped)
            return IterativeResult(text, Retrieval("iterative", hits, trace), steps)
        following = reply.next_search.strip()
        if not following or following.casefold() in {s.search.casefold() for s in steps}:
            break  # nothing new to look for: answer from what was found
        query = following
    final = llm_answer_from_hits(client, question, hits, budget.context_tokens)
    return IterativeResult(final, Retrieval("iterative", hits, trace), steps)


def _given(hits: list[Hit], context_tokens: int) -> dict[int, str]:
    """The hits' texts packed into the budget in the order found (a text over it cut between sentences)."""
    texts = pack([hit.text for hit in hits], context_tokens)
    return {hit.chunk_id: text for hit, text in zip(hits, texts, strict=False)}
