"""The no-LLM concept graph (the LazyGraphRAG construction): per chunk, its named entities and noun
phrases as entities, and a CO_OCCURS edge between every two that share the chunk. Parallel edges
merge in the knowledge graph, so an edge's weight is the number of chunks where both occur.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from hopgraph.kg.facts import CO_OCCURS
from hopgraph.kg.resolution import normalise
from hopgraph.records.knowledge import ChunkFacts, RawEntity, RawRelation
from hopgraph.text.nlp import LEAD, NOUN_CHUNK, Concept, concepts, load_model

EXTRACTOR = "nlp-4"  # bump when concepts change: stored facts of an older version are redone
# spaCy labels → our entity types; numbers, dates and amounts are not concepts. A lead subject is
# untyped, so that resolution joins it to the typed entity of the same name ("Adriana Trigiani", PERSON).
LABEL_TYPES = {
    "PERSON": "PERSON",
    "ORG": "ORG",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "PRODUCT": "PRODUCT",
    "EVENT": "EVENT",
    "WORK_OF_ART": "CONCEPT",
    "NORP": "CONCEPT",
    "LAW": "CONCEPT",
    "LANGUAGE": "CONCEPT",
    NOUN_CHUNK: "CONCEPT",
    LEAD: "",
}
_STOP = frozenset(
    [
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "who",
        "whom",
        "which",
        "what",
        "one",
        "ones",
    ]
)
_DETERMINERS = frozenset(["a", "an", "the", "some", "any", "no", "every", "each", "all", "such", "own"])
MAX_PER_CHUNK = 12  # co-occurrence edges grow with the square of this


def keep(concept: Concept) -> str:
    """The concept's name if it is worth a node: typed, and more than a pronoun or a lone common word."""
    if concept.label not in LABEL_TYPES:
        return ""
    name = " ".join(concept.surface.split())  # hard-wrapped text puts line breaks inside names
    words = normalise(name).split()
    if not words or all(w in _STOP for w in words):
        return ""
    content = [w for w in words if w not in _STOP and w not in _DETERMINERS]
    if concept.label == NOUN_CHUNK and not any(ch.isupper() for ch in name) and len(content) < 2:
        return ""  # "the film", "a moment", "its head": too generic to join chunks
    return name


def chunk_concepts(found: Sequence[Concept]) -> list[tuple[str, str]]:
    """(name, type) of the chunk's concepts, first mention first, one per normalised name."""
    seen: dict[str, tuple[str, str]] = {}
    for concept in found:
        name = keep(concept)
        key = normalise(name)
        if name and key not in seen:
            seen[key] = (name, LABEL_TYPES[concept.label])
    return list(seen.values())[:MAX_PER_CHUNK]


def concept_facts(
    chunk_ids: Sequence[int], texts: Sequence[str], progress: Callable[[int, int], None] | None = None
) -> list[ChunkFacts]:
    facts = []
    nlp = load_model()  # entities and noun phrases need the parse: without the `nlp` extra, its message
    for chunk_id, found in zip(chunk_ids, concepts(texts, nlp, progress=progress), strict=True):
        kept = chunk_concepts(found)
        facts.append(
            ChunkFacts(
                chunk_id,
                EXTRACTOR,
                [RawEntity(name, type_) for name, type_ in kept],
                [RawRelation(a, CO_OCCURS, b, "", ta, tb) for (a, ta), (b, tb) in combinations(kept, 2)],
            )
        )
    return facts
