"""A question's neighbourhood in the knowledge graph, and one entity's relations with the sentences
that state them: what the web inspector draws as a graph and shows on a click.

The neighbourhood is local search's own walk (query/local.py: the entities the question names, else
those whose names are nearest to it, then a bounded BFS), so the picture is the graph local search
reads, not a look-alike.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

from hopgraph.query.local import (
    EMBED_ENTITY_NAMES_UP_TO,
    GraphView,
    LocalBudget,
    bounded_bfs,
    nearest_entities,
    question_entities,
)
from hopgraph.query.writers import ChunkTexts
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation
from hopgraph.retrieval.index import SearchIndex
from hopgraph.text.sentences import split_sentences

# A drawing a reader can follow: two hops, at most 40 entities, 8 edges from each.
DRAWN = LocalBudget(max_hops=2, max_nodes=40, fan_out=8, max_relations=80)
MAX_RELATIONS_SHOWN = 60  # of one entity, heaviest first


@dataclass
class Neighbourhood:
    seeds_from: str  # how the walk's first entities were found
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)


def question_neighbourhood(view: GraphView, index: SearchIndex, question: str,
                           budget: LocalBudget = DRAWN) -> Neighbourhood:
    """The entities within `budget` of the question's and the relations between them."""
    graph = view.graph
    seeds, how = question_entities(view, question), "names in the question"
    if not seeds and 0 < len(graph.entities) <= EMBED_ENTITY_NAMES_UP_TO:
        seeds, how = nearest_entities(view, index, question), "entity names nearest the question"
    if not seeds:
        return Neighbourhood("no entity of the graph is in the question" if graph.entities
                             else "the knowledge graph is empty (run `hopgraph extract`)")
    relations, reached = bounded_bfs(graph, seeds, budget)
    nodes = [_node(graph.entities[entity_id], hop, entity_id in seeds) for entity_id, hop in reached.items()]
    edges = [_edge(relation) for relation in relations if relation.source in reached and relation.target in reached]
    return Neighbourhood(how, nodes, edges)


def entity_relations(graph: KnowledgeGraph, entity_id: int, chunk_texts: ChunkTexts,
                     limit: int = MAX_RELATIONS_SHOWN) -> dict[str, Any]:
    """The entity and its heaviest relations, each with the sentence of every source chunk that
    mentions its two ends (the chunk's text is read once per chunk)."""
    entity = graph.entities[entity_id]
    positions = heapq.nlargest(limit, graph.out_edges[entity_id] + graph.in_edges[entity_id],
                               key=lambda p: (graph.relations[p].weight, -p))
    relations = [graph.relations[p] for p in positions]
    texts = chunk_texts({s.chunk_id for r in relations for s in r.sources})
    return {**_node(entity, 0, True), "description": entity.description, "aliases": entity.aliases,
            "relations": [_relation(graph, relation, texts) for relation in relations]}


def stating_sentence(text: str, ends: list[Entity]) -> str:
    """The sentence of `text` that mentions the most of the relation's ends (by name or alias, each
    end once: an alias is not a second end), the first on ties."""
    sentences = split_sentences(text) or [text.strip()]
    names = [[n.casefold() for n in (entity.name, *entity.aliases) if n] for entity in ends]
    return max(sentences, key=lambda s: sum(any(n in s.casefold() for n in end) for end in names))


def _node(entity: Entity, hop: int, seed: bool) -> dict[str, Any]:
    return {"id": entity.id, "name": entity.name, "type": entity.type, "hop": hop, "seed": seed}


def _edge(relation: Relation) -> dict[str, Any]:
    return {"id": relation.id, "source": relation.source, "target": relation.target, "relation": relation.relation,
            "weight": relation.weight}


def _relation(graph: KnowledgeGraph, relation: Relation, texts: dict[int, str]) -> dict[str, Any]:
    ends = [graph.entities[relation.source], graph.entities[relation.target]]
    sources = [{"chunk": s.chunk_id, "sentence": stating_sentence(texts.get(s.chunk_id, ""), ends)}
               for s in relation.sources]
    return {**_edge(relation), "source_name": ends[0].name, "target_name": ends[1].name, "sources": sources}
