"""Records of the knowledge graph: raw facts as extractors state them, and the resolved graph.

Every extractor (LLM, dependency parse, concepts, triple import) yields `ChunkFacts`: what one chunk
states, before resolution. The knowledge graph (canonical entities, merged relations with their
source chunks) is rebuilt from them; it is held in memory with adjacency lists for traversal.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from hopgraph.records import dates
from hopgraph.records.dates import within


@dataclass(frozen=True)
class RawEntity:
    name: str
    type: str
    description: str = ""


@dataclass(frozen=True)
class RawRelation:
    source: str
    relation: str
    target: str
    description: str = ""
    source_type: str = ""
    target_type: str = ""
    date: str | None = None  # ISO date the fact holds from, when the source says so
    until: str | None = None  # ISO date it held until, when it has ended


@dataclass
class ChunkFacts:
    chunk_id: int
    extractor: str  # "llm:<model>", "nlp", "triples"
    entities: list[RawEntity] = field(default_factory=list)
    relations: list[RawRelation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why items were dropped (unknown type, empty name…)

    def to_json(self) -> str:
        """The payload of a stored facts row (it carries the chunk id too)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, payload: str) -> ChunkFacts:
        data = json.loads(payload)
        return cls(data["chunk_id"], data["extractor"], [RawEntity(**e) for e in data["entities"]],
                   [RawRelation(**r) for r in data["relations"]], data.get("skipped", []))


# The extractor of imported triples is `triples:<file>`: facts a *document* states (the CSV names it),
# attached to the chunk of it that mentions them, where other extractors' facts are what one chunk says.
IMPORTED = "triples:"


@dataclass(frozen=True)
class OldChunk:
    """A chunk an index run deletes (its document edited, renamed or withdrawn), with its facts."""

    id: int
    doc_id: int
    text_hash: str
    facts: tuple[ChunkFacts, ...] = ()


@dataclass(frozen=True)
class NewChunk:
    """A chunk the same run inserts."""

    id: int
    doc_id: int
    text_hash: str
    text: str


@dataclass
class Rechunking:
    """What one index run did to chunks, for carrying facts from the old to the new (ingest/carry.py)."""

    deleted: list[OldChunk]  # in document order
    inserted: list[NewChunk]  # in document order
    withdrawn: dict[int, str] = field(default_factory=dict)  # document id → title, of those withdrawn
    created: dict[int, str] = field(default_factory=dict)  # document id → title, of those new to the store


@dataclass
class CarriedFacts:
    """The facts rows the new chunks get. `moved` (old chunk id → new chunk id) when every fact moved
    whole, one chunk to one: then the facts did not change but for chunk ids, and the knowledge graph
    needs only its sources relabelled; None when any fact was dropped, copied or attached anew."""

    facts: list[ChunkFacts]
    moved: dict[int, int] | None


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
    extractor: str = ""  # who read it there ("llm:<model>", "parse-1", "triples:…"; "a+b" when several did)

    def holds_on(self, day: str) -> bool:
        return within(day, self.date, self.until)


@dataclass
class Relation:
    id: int
    source: int  # entity id
    relation: str
    target: int  # entity id
    description: str = ""
    sources: list[Source] = field(default_factory=list)
    valid_from: str | None = None  # ISO dates to a year, month or day, compared as spans (records/dates.py)
    valid_until: str | None = None
    superseded_by: int | None = None  # the relation that replaced it (kg/supersession.py), from valid_until

    def holds_on(self, day: str | None = None) -> bool:
        """Whether the relation holds on that ISO date (None: today, as queries without a date ask).
        A superseded relation holds up to its `valid_until`; otherwise some dated statement must say
        it held that day (a supply that ended in 2022 and was restated "since 2024" holds in 2025,
        not in 2023). An undated statement tells no time: with none dated, the relation's own bounds
        decide (open ends unbounded), so a fact that ended is not current and one whose end is still
        to come is."""
        day = day or dates.today()
        if self.superseded_by is not None and not within(day, None, self.valid_until):
            return False
        dated = [s for s in self.sources if s.date or s.until]
        if not dated:
            return within(day, self.valid_from, self.valid_until)
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


@dataclass(frozen=True)
class MergeCandidate:
    """Two names resolution was not sure enough to merge: a person decides."""

    a: str
    b: str
    type: str
    score: float


@dataclass(frozen=True)
class MergeReview:
    """A merge candidate as stored, with its id and status (pending, accepted, rejected)."""

    id: int
    a: str
    b: str
    type: str
    score: float
    status: str


@dataclass(frozen=True)
class ExtractionFailure:
    chunk_id: int
    error: str


@dataclass(frozen=True)
class ChunkText:
    """A chunk id with its text: what an extractor reads."""

    chunk_id: int
    text: str


@dataclass(frozen=True)
class Hop:
    """One step of a path: the stored edge (source, relation, target) and the chunk that states it."""

    source: str
    relation: str
    target: str
    chunk_id: int
    doc_id: int

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


Path = list[Hop]
