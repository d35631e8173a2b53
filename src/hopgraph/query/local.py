"""Local search: from the entities a question names, a bounded walk of the knowledge graph, and the
chunks its relations come from.

1. Seeds: entities whose name or alias the question mentions (Aho-Corasick, case-folded); if none,
   the entities closest to the question by embedding of their names (small graphs), else the
   entities of the best hybrid-search chunks.
2. Bounded BFS over the relations that hold today, in both directions: at most `max_hops` hops and `max_nodes` entities,
   `fan_out` edges per entity (heaviest first), `max_relations` relations kept for the context.
3. Chunks the kept relations come from, ranked by reciprocal rank fusion of two rankings: how many
   kept relations each chunk sources, and the question's hybrid search rank — graph evidence that is
   also about the question comes first.
If the graph gives nothing, it returns the top hybrid hits and says why; query/fallopen.py answers
from their facts, else from the hits themselves.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from hopgraph.linkgraph.names import MentionFinder
from hopgraph.llm import LLMClient
from hopgraph.query.writers import (
    ChunkTexts,
    Draft,
    chain_text,
    extractive_from_relations,
    llm_answer,
    relation_hops,
)
from hopgraph.records.dates import today
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation
from hopgraph.records.retrieval import Budget, Hit, Retrieval, TraceStep, Via
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.methods import run_method

EMBED_ENTITY_NAMES_UP_TO = 5000  # beyond this, seeds come from search hits instead (embedding is slow)


@dataclass(frozen=True)
class LocalBudget:
    max_hops: int = 2
    max_nodes: int = 50
    fan_out: int = 10
    max_relations: int = 30
    top: int = 5


@dataclass
class GraphView:
    """The knowledge graph plus what local search needs to find entities in a question."""

    graph: KnowledgeGraph
    finder: MentionFinder = field(init=False)
    entity_of_surface: dict[str, int] = field(init=False)
    vectors: np.ndarray | None = None
    vector_ids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.entity_of_surface = self.graph.by_name()
        self.finder = MentionFinder(self.entity_of_surface, casefold=True)


@dataclass
class LocalResult:
    retrieval: Retrieval
    seeds: list[Entity]
    relations: list[Relation]
    fell_open: str = ""  # why the graph did not answer, if it did not


def question_entities(view: GraphView, question: str) -> list[int]:
    found = (view.entity_of_surface[view.finder.surfaces[i]] for i in view.finder.find(question))
    return list(dict.fromkeys(found))  # an entity named twice (name and alias) is one seed


def nearest_entities(view: GraphView, index: SearchIndex, question: str, k: int = 3, floor: float = 0.5) -> list[int]:
    """Entities by cosine of their names to the question (names embedded once, on first use)."""
    if view.vectors is None:
        view.vector_ids = list(view.graph.entities)
        view.vectors = index.embedder.embed([view.graph.entities[i].name for i in view.vector_ids])
    scores = view.vectors @ index.embedder.embed_query(question)
    best = np.argsort(-scores)[:k]
    return [view.vector_ids[i] for i in best if scores[i] >= floor]


def bounded_bfs(graph: KnowledgeGraph, seeds: list[int], budget: LocalBudget,
                day: str | None = None) -> tuple[list[Relation], dict[int, int]]:
    """Relations reached from the seeds within the budget, nearest and heaviest first, and the hop
    distance of every entity reached; only relations that hold on `day` (today by default), as
    `paths` walks them: an ended or superseded fact is no evidence of what is."""
    day = day or today()
    kept: list[Relation] = []
    seen_relations: set[int] = set()
    visited = dict.fromkeys(seeds, 0)
    frontier = list(seeds)
    for hop in range(1, budget.max_hops + 1):
        next_frontier = []
        for node in frontier:
            holding = [p for p in graph.out_edges[node] + graph.in_edges[node] if graph.relations[p].holds_on(day)]
            edges = heapq.nlargest(budget.fan_out, holding, key=lambda p: graph.relations[p].weight)
            for position in edges:
                relation = graph.relations[position]
                if position not in seen_relations and len(kept) < budget.max_relations:
                    seen_relations.add(position)
                    kept.append(relation)
                other = relation.target if relation.source == node else relation.source
                if other not in visited and len(visited) < budget.max_nodes:
                    visited[other] = hop
                    next_frontier.append(other)
        frontier = next_frontier
    return kept, visited


def search_depth(budget: LocalBudget) -> int:
    """How many hybrid hits local search ranks its chunks against (and seeds from, on a big graph)."""
    return max(budget.top, 20)


def local_search(view: GraphView, index: SearchIndex, question: str, budget: LocalBudget,
                 rrf_k: int = 10, search: Retrieval | None = None) -> LocalResult:
    """The walk and its chunks; `search`: the question's hybrid hits, at least `search_depth(budget)`
    of them, when the caller already ran that search (live extraction reads its top hits too)."""
    started = time.perf_counter()
    trace: list[TraceStep] = []
    graph = view.graph
    seeds = question_entities(view, question)
    how = "names in the question"
    search = search or run_method(index, question, "hybrid", Budget(top=search_depth(budget)), rrf_k)
    if not seeds and graph.entities:
        if len(graph.entities) <= EMBED_ENTITY_NAMES_UP_TO:
            seeds, how = nearest_entities(view, index, question), "entity names nearest the question"
        else:
            hit_chunks = {h.chunk_id for h in search.hits[:3]}
            seeds = [e.id for e in graph.entities.values() if e.chunks & hit_chunks][:10]
            how = "entities of the best search hits"
    trace.append(TraceStep("seeds", (time.perf_counter() - started) * 1000,
                           f"{len(seeds)} from {how}: " + ", ".join(graph.entities[s].name for s in seeds[:8])))
    relations, reached = bounded_bfs(graph, seeds, budget)
    trace.append(TraceStep("walk", 0.0, f"{len(relations)} relation(s), {len(reached)} entities within "
                                        f"{budget.max_hops} hop(s)"))
    hits = _chunks_of(reached, relations, index, search.hits, graph, budget.top)
    if not hits:
        reason = "no entity of the question is in the graph" if not seeds else "the graph walk found no chunks"
        trace.append(TraceStep("fall open", 0.0, f"{reason}; the top hybrid hits instead"))
        return LocalResult(Retrieval("local", search.hits[: budget.top], trace), [], [], reason)
    trace.append(TraceStep("chunks", (time.perf_counter() - started) * 1000, f"{len(hits)} source chunk(s)"))
    return LocalResult(Retrieval("local", hits, trace), [graph.entities[s] for s in seeds], relations)


def _chunks_of(reached: dict[int, int], relations: list[Relation], index: SearchIndex, search_hits: list[Hit],
               graph: KnowledgeGraph, top: int) -> list[Hit]:
    """The chunks of the entities reached, ranked by RRF (k = 10) of two rankings: graph evidence —
    each reached entity votes for its chunks with weight idf / (1 + hop), so a rare entity near the
    question counts most — and the question's hybrid search rank."""
    n_chunks = max(1, len(index))
    votes: Counter[int] = Counter()
    for entity_id, hop in reached.items():
        chunks = graph.entities[entity_id].chunks
        weight = math.log(1 + n_chunks / max(1, len(chunks))) / (1 + hop)
        for chunk in chunks:
            votes[chunk] += weight
    first_relation: dict[int, Relation] = {}
    for relation in relations:
        for source in relation.sources:
            first_relation.setdefault(source.chunk_id, relation)
    search_rank = {h.chunk_id: r for r, h in enumerate(search_hits, start=1)}
    vote_rank = {c: r for r, (c, _) in enumerate(votes.most_common(), start=1)}
    row_of = index.row_of_chunk
    fused = {c: 1 / (10 + vote_rank[c]) + (1 / (10 + search_rank[c]) if c in search_rank else 0.0)
             for c in votes if c in row_of}
    ranked = sorted(fused, key=lambda c: (-fused[c], c))
    hits = []
    for chunk in ranked[:top]:
        row, relation = row_of[chunk], first_relation.get(chunk)
        via = Via(-1, graph.entities[relation.source].name,
                  f"{relation.relation} {graph.entities[relation.target].name}") if relation else None
        hits.append(Hit(chunk, int(index.table.doc_ids[row]), index.title_of_row(row), index.table.texts[row],
                        round(fused[chunk], 5), "graph", via, source=index.source_of_row(row)))
    return hits


def answer_local(question: str, result: LocalResult, graph: KnowledgeGraph, chunk_texts: ChunkTexts,
                 client: LLMClient | None) -> Draft:
    """The walk's relations as the answer's evidence: read by the LLM when there is one, else each
    relation with the sentence of its chunk that states it. When the walk fell open to search, the
    passages themselves are the evidence."""
    hits = result.retrieval.hits
    if client is not None:
        chains = [chain_text([hop]) for hop in relation_hops(graph, result.relations)]
        return llm_answer(client, question, chains, chunk_texts([h.chunk_id for h in hits]))
    if result.relations:
        cited = {s.chunk_id for r in result.relations for s in r.sources}
        return extractive_from_relations(graph, result.relations, chunk_texts(cited))
    return Draft("\n".join(f"[chunk {h.chunk_id}] {h.title}: {h.text[:300]}" for h in hits),
                  [h.chunk_id for h in hits])
