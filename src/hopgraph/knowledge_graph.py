"""The knowledge graph: canonical entities and merged, directed, typed relations with provenance.

Assembled from the raw facts of every extractor after entity resolution: parallel statements of
one relation (same source, relation, target) merge into one edge whose weight is the number of
chunks stating it and which keeps every source chunk. Held in memory as arrays for traversal.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from hopgraph.extract.facts import ChunkFacts
from hopgraph.resolution import Resolution


@dataclass
class Entity:
    id: int
    name: str
    type: str
    description: str = ""
    aliases: list[str] = field(default_factory=list)
    chunks: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Source:
    """One chunk stating a relation, with the interval it says the relation held (None: open)."""

    chunk_id: int
    doc_id: int
    date: str | None = None
    until: str | None = None

    def holds_on(self, day: str) -> bool:
        return (self.date is None or self.date <= day) and (self.until is None or day <= self.until)


@dataclass
class Relation:
    id: int
    source: int  # entity id
    relation: str
    target: int  # entity id
    description: str = ""
    sources: list[Source] = field(default_factory=list)
    valid_from: str | None = None  # ISO dates, compared as strings ("2024" < "2024-03" < "2024-03-01")
    valid_until: str | None = None

    def holds_on(self, day: str | None) -> bool:
        """Whether some statement of the relation says it held on that ISO date (None: any time);
        a supply that ended in 2022 and was restated "since 2024" holds in 2025 but not in 2023."""
        if day is None:
            return True
        dated = [s for s in self.sources if s.date or s.until]  # an undated statement tells no time
        if not dated:
            return (self.valid_from is None or self.valid_from <= day) and (
                self.valid_until is None or day <= self.valid_until)
        return any(source.holds_on(day) for source in dated)

    @property
    def weight(self) -> float:
        return float(len({s.chunk_id for s in self.sources}))


@dataclass
class KnowledgeGraph:
    entities: dict[int, Entity] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.index()

    def index(self) -> None:
        """(Re)build the adjacency lists: relation positions by source and by target entity."""
        self.out_edges: dict[int, list[int]] = defaultdict(list)
        self.in_edges: dict[int, list[int]] = defaultdict(list)
        for position, relation in enumerate(self.relations):
            self.out_edges[relation.source].append(position)
            self.in_edges[relation.target].append(position)

    def by_name(self) -> dict[str, int]:
        """Case-folded name and alias → entity id (first entity wins on a clash)."""
        names: dict[str, int] = {}
        for entity in self.entities.values():
            for surface in (entity.name, *entity.aliases):
                names.setdefault(surface.casefold(), entity.id)
        return names

    def find(self, name: str) -> Entity | None:
        entity_id = self.by_name().get(name.casefold())
        return self.entities.get(entity_id) if entity_id is not None else None


def _widen(relation: Relation) -> None:
    """valid_from / valid_until summarise the statements: the earliest start (None if any is open),
    the latest end (None if any statement is still open-ended)."""
    starts = [s.date for s in relation.sources]
    ends = [s.until for s in relation.sources]
    relation.valid_from = None if None in starts else min(starts)  # type: ignore[type-var]
    relation.valid_until = None if None in ends else max(ends)  # type: ignore[type-var]


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
            relation.sources.append(Source(chunk, chunk_docs.get(chunk, -1), raw.date, raw.until))
            _widen(relation)
            graph.entities[source].chunks.add(chunk)
            graph.entities[target].chunks.add(chunk)
    graph.relations = list(merged.values())
    graph.index()
    return graph
