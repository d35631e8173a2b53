"""The knowledge graph: canonical entities and merged, directed, typed relations with provenance.

Assembled from the raw facts of every extractor after entity resolution: parallel statements of
one relation (same source, relation, target) merge into one edge whose weight is the number of
chunks stating it and which keeps every source chunk. Held in memory as arrays for traversal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from hopgraph.kg.resolution import Resolution
from hopgraph.records.dates import span
from hopgraph.records.knowledge import ChunkFacts, Entity, KnowledgeGraph, Relation, Source


def _widen(relation: Relation) -> None:
    """valid_from / valid_until summarise the dated statements as `Relation.holds_on` reads them
    (an undated statement tells no time): the earliest start (None if one is open), the latest end
    (None if one is still open), compared as spans ("until 2024" ends after "until 2024-06")."""
    dated = [s for s in relation.sources if s.date or s.until]
    starts, ends = [s.date for s in dated], [s.until for s in dated]
    relation.valid_from = min(starts, key=lambda d: span(d)[0]) if dated and None not in starts else None  # type: ignore[arg-type]
    relation.valid_until = max(ends, key=lambda d: span(d)[1]) if dated and None not in ends else None  # type: ignore[arg-type]


def _add_source(relation: Relation, source: Source) -> None:
    """One source per chunk: when a second extractor states the relation in the same chunk, the
    chunk's source names both (the LLM's facts and the parser's merge with their provenance)."""
    for position, known in enumerate(relation.sources):
        if known.chunk_id == source.chunk_id:
            if source.extractor not in known.extractor.split("+"):
                relation.sources[position] = replace(known, extractor=f"{known.extractor}+{source.extractor}")
            return
    relation.sources.append(source)


def assemble(facts: Iterable[ChunkFacts], resolution: Resolution, chunk_docs: dict[int, int]) -> KnowledgeGraph:
    """Canonical entities from the resolution, and one relation per (source, relation, target)."""
    graph = KnowledgeGraph()
    for cluster_id, cluster in enumerate(resolution.clusters, start=1):
        graph.entities[cluster_id] = Entity(cluster_id, cluster.name, cluster.type, cluster.description,
                                            sorted(cluster.aliases - {cluster.name}))
    merged: dict[tuple[int, str, int], Relation] = {}
    for chunk_facts in facts:
        chunk = chunk_facts.chunk_id
        for raw in chunk_facts.entities:
            entity_id = resolution.entity_of(raw.name, raw.type)
            if entity_id is not None:
                graph.entities[entity_id].chunks.add(chunk)
        for raw in chunk_facts.relations:
            source = resolution.entity_of(raw.source, raw.source_type)
            target = resolution.entity_of(raw.target, raw.target_type)
            if source is None or target is None or source == target:
                continue
            key = (source, raw.relation, target)
            if key not in merged:
                merged[key] = Relation(len(merged) + 1, source, raw.relation, target, raw.description)
            relation = merged[key]
            _add_source(relation, Source(chunk, chunk_docs.get(chunk, -1), raw.date, raw.until, chunk_facts.extractor))
            _widen(relation)
            graph.entities[source].chunks.add(chunk)
            graph.entities[target].chunks.add(chunk)
    graph.relations = list(merged.values())
    graph.index()
    return graph
