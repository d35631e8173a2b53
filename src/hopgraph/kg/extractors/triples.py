"""Structured import: relations a user already has (a database export) as a CSV of triples.

Header `subject,relation,object,source` plus optional `date`, `subject_type`, `object_type`.
`source` names the document that states the fact (its title, file name, path or id); a source that
is not an indexed document becomes one, whose text is its triples written as sentences, so every edge still
points at a chunk. Rows with an empty field are skipped and counted, never half-imported.

Relation types are the file's own (a database export names its relations; `paths` walks any typed
relation), but an entity type must be one of the vocabulary's or empty: resolution keeps names of two
types apart, so "Hosur" typed CITY beside "Hosur" typed LOCATION would be two places, and two equal
LOCATED_IN facts would never meet for supersession. Such a row is a counted skip naming the types.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from hopgraph.errors import InputError
from hopgraph.kg.facts import Vocabulary
from hopgraph.records.dates import check_interval
from hopgraph.records.knowledge import ChunkFacts, RawEntity, RawRelation

REQUIRED = ("subject", "relation", "object", "source")
OPTIONAL = ("date", "subject_type", "object_type")


@dataclass(frozen=True)
class Triple:
    subject: str
    relation: str
    object: str
    source: str
    date: str | None = None
    subject_type: str = ""
    object_type: str = ""
    until: str | None = None

    def sentence(self) -> str:
        verb = self.relation.lower().replace("_", " ")
        since = f" since {self.date}" if self.date else ""
        until = f" until {self.until}" if self.until else ""
        return f"{self.subject} {verb} {self.object}{since}{until}."


@dataclass
class TripleFile:
    triples: list[Triple] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "line 7: empty object"


def read_triples(path: Path, vocabulary: Vocabulary | None = None) -> TripleFile:
    """The file's usable triples, and why each other row was skipped (`vocabulary`: the default's)."""
    entity_types = (vocabulary or Vocabulary()).entity_types
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = [h.strip() for h in reader.fieldnames or []]
            missing = [column for column in REQUIRED if column not in header]
            if missing:
                raise InputError(f"{path}: missing column(s) {', '.join(missing)}; the header must have "
                                 f"{','.join(REQUIRED)} (optional: {','.join(OPTIONAL)})")
            rows = [(reader.line_num, row) for row in reader]  # file line numbers, blank lines included
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise InputError(f"{path}: cannot read triples: {err}") from None
    result = TripleFile()
    for line, row in rows:
        values = {k.strip(): (v or "").strip() for k, v in row.items() if k}
        triple = _triple(values, entity_types)
        if isinstance(triple, str):
            result.skipped.append(f"line {line}: {triple}")
        else:
            result.triples.append(triple)
    if not result.triples:
        raise InputError(f"{path}: no usable triples ({len(result.skipped)} row(s) skipped)")
    return result


def _triple(values: dict[str, str], entity_types: tuple[str, ...]) -> Triple | str:
    """The row's triple, or why it is skipped."""
    empty = [column for column in REQUIRED if not values.get(column)]
    if empty:
        return f"empty {', '.join(empty)}"
    try:
        start, until = _interval(values.get("date", ""))
    except ValueError as err:
        return f"date {err}"
    relation = normalise_relation(values["relation"])
    if not relation:
        return f"relation {values['relation']!r} has no letter or digit"
    types = {column: values.get(column, "").upper() for column in ("subject_type", "object_type")}
    unknown = [f"{column} {type_!r}" for column, type_ in types.items() if type_ and type_ not in entity_types]
    if unknown:
        verb = "is not an entity type" if len(unknown) == 1 else "are not entity types"
        return f"{', '.join(unknown)} {verb} ({', '.join(entity_types)}; the setting entity_types adds more)"
    return Triple(values["subject"], relation, values["object"], values["source"], start, types["subject_type"],
                  types["object_type"], until)


def _interval(text: str) -> tuple[str | None, str | None]:
    """`date` is "FROM", or "FROM/UNTIL" for a fact that has ended (either side may be empty:
    "/2022"); each a calendar date, the start not after the end (records/dates.py)."""
    if text.count("/") > 1:
        raise ValueError(f"{text!r} is not FROM or FROM/UNTIL")
    start, _, until = text.partition("/")
    try:
        return check_interval(start or None, until or None)
    except ValueError as err:
        raise ValueError(f"{text!r}: {err}") from None


def normalise_relation(relation: str) -> str:
    """'buys castings from' → 'BUYS_CASTINGS_FROM'; 'SUPPLIES' stays."""
    return re.sub(r"[^A-Z0-9]+", "_", relation.upper()).strip("_")


def source_texts(triples: list[Triple]) -> dict[str, str]:
    """A document text per source: its triples as sentences."""
    by_source: dict[str, list[str]] = defaultdict(list)
    for triple in triples:
        by_source[triple.source].append(triple.sentence())
    return {source: "\n".join(dict.fromkeys(lines)) for source, lines in by_source.items()}


def triple_facts(triples: list[Triple], chunk_of: dict[int, int], extractor: str) -> list[ChunkFacts]:
    """Facts per chunk; `chunk_of` maps a triple's position to the chunk that states it."""
    facts: dict[int, ChunkFacts] = {}
    for position, triple in enumerate(triples):
        chunk = chunk_of[position]
        item = facts.setdefault(chunk, ChunkFacts(chunk, extractor))
        item.entities += [RawEntity(triple.subject, triple.subject_type), RawEntity(triple.object, triple.object_type)]
        item.relations.append(RawRelation(triple.subject, triple.relation, triple.object, "",
                                          triple.subject_type, triple.object_type, triple.date, triple.until))
    return list(facts.values())
