"""The controlled vocabulary facts are stated in: entity types and relation types.

Every extractor (LLM, dependency parse, concepts, triple import) yields `ChunkFacts`
(records/knowledge.py) in this vocabulary; the LLM is held to it by its reply schema, the others by
their own mapping. The defaults suit supply chains; `entity_types` / `relation_types` in the
settings replace them.
"""

from __future__ import annotations

from dataclasses import dataclass

from hopgraph.config import Settings

DEFAULT_ENTITY_TYPES = ("PERSON", "ORG", "PRODUCT", "LOCATION", "COMPONENT", "EVENT", "CONCEPT")
DEFAULT_RELATIONS = ("SUPPLIES", "USES", "LOCATED_IN", "OWNS", "PART_OF", "REPORTS_TO", "CAUSED_BY",
                     "RELATED_TO")
# Two entities named in one chunk (the no-LLM concept graph): a structural edge, not a stated fact.
# Communities and lazy search weigh it; path queries do not walk it.
CO_OCCURS = "CO_OCCURS"


@dataclass(frozen=True)
class Vocabulary:
    entity_types: tuple[str, ...] = DEFAULT_ENTITY_TYPES
    relation_types: tuple[str, ...] = DEFAULT_RELATIONS

    @classmethod
    def parse(cls, entity_types: str, relation_types: str) -> Vocabulary:
        """From the settings' comma-separated lists (upper-cased, blanks dropped)."""
        split = lambda text: tuple(t.strip().upper() for t in text.split(",") if t.strip())  # noqa: E731
        return cls(split(entity_types), split(relation_types))

    @classmethod
    def of(cls, settings: Settings) -> Vocabulary:
        """The vocabulary the settings name (`entity_types`, `relation_types`)."""
        return cls.parse(settings.entity_types, settings.relation_types)
