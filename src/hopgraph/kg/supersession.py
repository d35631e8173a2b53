"""Facts that stop being true: a newer statement of a functional relation supersedes the older one.

A relation is *functional* when its subject has one object at a time (settings
`functional_relations`: a plant's LOCATED_IN, a person's REPORTS_TO). When two relations give one
subject two different objects, the one stated later wins: the older gets `valid_until` = the
newer one's date and `superseded_by` = its id. Nothing is deleted — `--as-of` before the change
still sees the old fact; queries without a date see only the current one.

The rule, as one pure function (`supersede`), whose cases tests/kg/test_supersession.py tables:
- a fact's date is the latest date any of its statements carries (restated later = still true then);
- the later date wins, whatever order the documents arrived in (an old report indexed late loses);
- an undated fact is older than every dated one (it is what was known before any dated news);
- two facts of the same date, or both undated, cannot be ordered: both stand;
- a fact restated with the same object is one relation already (kg/graph.py merges them); and
  where two equal facts meet as two relations, the later one never ends the earlier.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import date

from hopgraph.records.dates import span
from hopgraph.records.knowledge import Relation


def functional_set(setting: str) -> frozenset[str]:
    """The setting's comma-separated relation names, upper-cased."""
    return frozenset(part.strip().upper() for part in setting.split(",") if part.strip())


def stated_on(relation: Relation) -> str | None:
    """The latest date from which a statement of the relation says it holds, or None."""
    dated = [d for d in (*(s.date for s in relation.sources), relation.valid_from) if d]
    return max(dated, key=lambda d: span(d)[0]) if dated else None


def supersede(relations: Sequence[Relation], functional: Iterable[str]) -> list[Relation]:
    """The relations with each superseded one's `valid_until` and `superseded_by` set (new objects;
    the input is not changed). Relations not functional pass through untouched."""
    functional = frozenset(functional)
    groups: dict[tuple[int, str], list[Relation]] = {}
    for relation in relations:
        if relation.relation in functional:
            groups.setdefault((relation.source, relation.relation), []).append(relation)
    changed: dict[int, Relation] = {}
    for group in groups.values():
        if len({r.target for r in group}) < 2:
            continue
        starts = {r.id: _start(stated_on(r)) for r in group}
        ordered = sorted(group, key=lambda r: (starts[r.id], r.id))
        for position, older in enumerate(ordered):
            # A restatement of the same object is no news about it: only another object ends a fact.
            newer = next((r for r in ordered[position + 1:]
                          if starts[r.id] > starts[older.id] and r.target != older.target), None)
            if newer is not None:
                changed[older.id] = replace(older, superseded_by=newer.id,
                                            valid_until=_earlier(older.valid_until, stated_on(newer)))
    return [changed.get(r.id, r) for r in relations]


def _start(day: str | None) -> date:
    """The first day a date names; an undated fact sorts before every dated one."""
    return span(day)[0] if day else date.min


def _earlier(until: str | None, other: str | None) -> str | None:
    if until is None or other is None:
        return other or until
    return until if span(until)[1] <= span(other)[1] else other
