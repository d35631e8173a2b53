"""Entity and relation extraction from one chunk, under a controlled vocabulary.

The reply model is built per vocabulary: its JSON schema carries the allowed types as `enum`s (a
server that honours JSON-schema output cannot leave the vocabulary) and caps list lengths
(`maxItems`, so a small model cannot loop), while validation itself stays lenient about types so
that a server without schema support still yields a reply whose out-of-vocabulary items are
counted and skipped by the caller rather than failing the whole chunk.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

MAX_ITEMS = 20

SYSTEM = """You extract a knowledge graph from text, precisely. Precision matters more than recall:
errors compound when the graph is traversed.
Rules:
- Entities: only the types listed. Use the name exactly as the text writes it.
- Relations: only the relation types listed, directed source → target, between entities you list.
- Do not invent relations that are not stated. A relation the text denies is not a relation.
- If the text gives the date a relation holds from, put it in `date` as YYYY-MM-DD, YYYY-MM or YYYY,
  else null. `description` is one short phrase from the text, or "".
- Answer with JSON only."""

USER = """Entity types: {entity_types}
Relation types (source → target): {relation_types}

Text:
\"\"\"
{text}
\"\"\""""


@cache
def reply_model(entity_types: tuple[str, ...], relation_types: tuple[str, ...]) -> type[BaseModel]:
    """The typed reply for this vocabulary (cached: the same class for the same vocabulary)."""
    # Every field required and no extra keys: what OpenAI's strict structured output demands.
    strict = ConfigDict(extra="forbid")
    entity = create_model(
        "Entity", __config__=strict,
        name=(str, Field(max_length=120)),
        type=(str, Field(json_schema_extra={"enum": list(entity_types)})),
        description=(str, Field(max_length=300)),
    )
    relation = create_model(
        "Relation", __config__=strict,
        source=(str, Field(max_length=120)),
        relation=(str, Field(json_schema_extra={"enum": list(relation_types)})),
        target=(str, Field(max_length=120)),
        description=(str, Field(max_length=300)),
        date=(str | None, Field(max_length=10)),
    )
    return create_model(
        "Extraction", __config__=strict,
        entities=(list[entity], Field(max_length=MAX_ITEMS)),  # type: ignore[valid-type]
        relations=(list[relation], Field(max_length=MAX_ITEMS)),  # type: ignore[valid-type]
    )


def messages(text: str, entity_types: tuple[str, ...], relation_types: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER.format(entity_types=", ".join(entity_types),
                                                    relation_types=", ".join(relation_types), text=text)}]
