"""Falling open when a graph walk finds nothing: to the facts of the question's top hits — the
relations whose source chunk is among the chunks hybrid search ranks first — and, when those chunks
state no fact either, to the hits themselves.

The middle step keeps a graph answer for a question that names no entity of the graph ("what moved
to Ranipet?" before anyone typed the foundry's name): the passages search finds are the ones about
the question, and the facts they state are the graph's reading of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from hopgraph.kg.facts import CO_OCCURS
from hopgraph.records.knowledge import Hop, KnowledgeGraph, Path, Relation
from hopgraph.records.retrieval import Hit

MAX_RELATIONS = 30  # as many as a local walk keeps (query/local.py, LocalBudget.max_relations)


def facts_of_hits(graph: KnowledgeGraph, hits: Sequence[Hit], limit: int = MAX_RELATIONS) -> list[Relation]:
    """The relations stated by the hits' chunks that hold today (not superseded, not ended) and state a fact (not
    co-occurrence), those of the best-ranked hit first, then in graph order."""
    rank = _ranks(hits)
    stated = []
    for position, relation in enumerate(graph.relations):
        ranks = [rank[s.chunk_id] for s in relation.sources if s.chunk_id in rank]
        if ranks and relation.relation != CO_OCCURS and relation.holds_on(None):
            stated.append((min(ranks), position, relation))
    return [relation for *_, relation in sorted(stated, key=lambda item: item[:2])][:limit]


def as_paths(graph: KnowledgeGraph, relations: Sequence[Relation], hits: Sequence[Hit]) -> list[Path]:
    """Each relation as a one-hop path citing the best-ranked hit that states it."""
    rank = _ranks(hits)
    paths = []
    for relation in relations:
        source = min((s for s in relation.sources if s.chunk_id in rank), key=lambda s: rank[s.chunk_id])
        paths.append([Hop(graph.entities[relation.source].name, relation.relation,
                          graph.entities[relation.target].name, source.chunk_id, source.doc_id)])
    return paths


def hits_stating(hits: Sequence[Hit], relations: Sequence[Relation]) -> list[Hit]:
    """The hits whose chunk is a source of one of the relations, in rank order."""
    stated = {s.chunk_id for relation in relations for s in relation.sources}
    return [hit for hit in hits if hit.chunk_id in stated]


def _ranks(hits: Sequence[Hit]) -> dict[int, int]:
    return {hit.chunk_id: position for position, hit in enumerate(hits)}
