"""`hopgraph ask --mode local|paths`: gather graph evidence for a question, then answer with citations.

local: the bounded walk from the question's entities (search/local.py). paths: every path of up to
three hops into each entity the question names (search/paths.py). The evidence goes to the LLM
when one is configured; otherwise the answer is the evidence itself, hop by hop, with the sentence
that states each hop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hopgraph.answer import (
    Answer,
    chain_text,
    extractive_from_paths,
    extractive_from_relations,
    llm_answer,
    relation_hops,
)
from hopgraph.errors import InputError
from hopgraph.model import Retrieval
from hopgraph.search.local import LocalBudget, question_entities
from hopgraph.search.paths import Path, find_paths

if TYPE_CHECKING:
    from hopgraph.engine import HopGraph

MODES = ("local", "paths")


@dataclass
class GraphAnswer:
    mode: str
    answer: Answer
    retrieval: Retrieval | None = None
    paths: list[Path] = field(default_factory=list)
    note: str = ""


def answer_question(hg: HopGraph, question: str, mode: str, budget: LocalBudget) -> GraphAnswer:
    if mode not in MODES:
        raise InputError(f"unknown graph mode {mode!r}; use one of {', '.join(MODES)}")
    return _local(hg, question, budget) if mode == "local" else _paths(hg, question)


def _local(hg: HopGraph, question: str, budget: LocalBudget) -> GraphAnswer:
    result = hg.local(question, budget)
    hits = result.retrieval.hits
    if hg.has_llm:
        chains = [chain_text([hop]) for hop in relation_hops(hg.knowledge_graph, result.relations)]
        answer = llm_answer(hg.llm(), question, chains, hg.chunk_texts([h.chunk_id for h in hits]))
    elif result.relations:
        cited = {s.chunk_id for r in result.relations for s in r.sources}
        answer = extractive_from_relations(hg.knowledge_graph, result.relations, hg.chunk_texts(cited))
    else:  # fell open to search: the passages are the evidence
        answer = Answer("\n".join(f"[chunk {h.chunk_id}] {h.title}: {h.text[:300]}" for h in hits),
                        [h.chunk_id for h in hits])
    return GraphAnswer("local", answer, result.retrieval, note=result.fell_open)


def _paths(hg: HopGraph, question: str) -> GraphAnswer:
    view = hg.graph_view
    entities = list(dict.fromkeys(question_entities(view, question)))
    if not entities:
        return GraphAnswer("paths", Answer("No entity of the question is in the knowledge graph."),
                           note="no entity found")
    found: list[Path] = []
    for entity_id in entities:
        found += find_paths(view.graph, view.graph.entities[entity_id].name, "in", max_hops=3, max_paths=50)
    texts = hg.chunk_texts({hop.chunk_id for path in found for hop in path})
    if hg.has_llm and found:
        answer = llm_answer(hg.llm(), question, [chain_text(p) for p in found], texts)
    else:
        answer = extractive_from_paths(found, texts, view.graph)
    return GraphAnswer("paths", answer, paths=found)
