"""Raw facts as extractors produce them, before entity resolution.

Every extractor (LLM, NLP, triple import) yields `ChunkFacts`: what one chunk states. They are
stored per chunk, so a re-run skips finished chunks, and the knowledge graph (canonical entities,
merged relations with their source chunks) is rebuilt from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_ENTITY_TYPES = ("PERSON", "ORG", "PRODUCT", "LOCATION", "COMPONENT", "EVENT", "CONCEPT")
DEFAULT_RELATIONS = ("SUPPLIES", "USES", "LOCATED_IN", "OWNS", "PART_OF", "REPORTS_TO", "CAUSED_BY",
                     "RELATED_TO")


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
