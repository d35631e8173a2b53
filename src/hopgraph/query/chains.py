"""Chain checks: known chains of dependence, checked hop by hop against the current knowledge graph.

A chains file has one chain per line (`#` starts a comment):

    Zephyra Motors -> Corvane Brake Systems -> Anvaya Foundry -> Hosur
    Corvane Brake Systems -[SUPPLIES:reverse]-> Anvaya Foundry

`->` accepts any relation, either way, between consecutive names; `-[REL]->` wants `left REL right`
and `-[REL:reverse]->` wants `right REL left`. A hop holds when such a relation holds on the date
asked (today by default: a superseded fact or one that ended does not). A broken hop says why: the
relation it had was superseded (by which fact, stated where), ended, starts later, or never was.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hopgraph.errors import InputError
from hopgraph.query.paths import check_as_of, find_entity
from hopgraph.records.dates import today, within
from hopgraph.records.knowledge import KnowledgeGraph, Relation

_ARROW = re.compile(r"\s*-(?:\[\s*([A-Za-z_]\w*)\s*(?::\s*(forward|reverse)\s*)?\]-)?>\s*")


@dataclass(frozen=True)
class Hop:
    left: str
    right: str
    relation: str | None = None  # None: any relation, either way
    way: str = "forward"

    def __str__(self) -> str:
        arrow = "->" if self.relation is None else f"-[{self.relation}{':reverse' if self.way == 'reverse' else ''}]->"
        return f"{self.left} {arrow} {self.right}"


@dataclass
class Chain:
    line: int
    text: str
    hops: list[Hop]


@dataclass
class ChainCheck:
    chain: Chain
    broken_at: int | None = None  # 1-based hop number
    reason: str = ""
    since: list[str] = field(default_factory=list)  # where the fact that broke it is stated

    @property
    def holds(self) -> bool:
        return self.broken_at is None


def parse_chains(text: str, where: str = "chains file") -> list[Chain]:
    """Every chain of the file; a line that is no chain of two names or more is an error naming it."""
    chains = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = _ARROW.split(line)  # name, relation, way, name, relation, way, name …
        names = [p.strip() for p in parts[0::3]]
        if len(names) < 2 or not all(names) or any("->" in n or "-[" in n for n in names):
            raise InputError(f"{where} line {number}: {raw.strip()!r} is not a chain (write A -> B -> C, or "
                             f"A -[RELATION]-> B)")
        hops = [Hop(names[i], names[i + 1], (parts[3 * i + 1] or "").upper() or None, parts[3 * i + 2] or "forward")
                for i in range(len(names) - 1)]
        chains.append(Chain(number, line, hops))
    if not chains:
        raise InputError(f"{where} holds no chain")
    return chains


def check_chain(graph: KnowledgeGraph, chain: Chain, as_of: str | None,
                cite: Callable[[list[int]], dict[int, str]]) -> ChainCheck:
    """The first hop that does not hold, and why; `cite` names where chunks are (store.chunk_citations)."""
    day = check_as_of(as_of) or today()
    for number, hop in enumerate(chain.hops, start=1):
        try:
            left, right = find_entity(graph, hop.left).id, find_entity(graph, hop.right).id
        except InputError as err:
            return ChainCheck(chain, number, str(err))
        candidates = _between(graph, hop, left, right)
        if any(r.holds_on(day) for r in candidates):
            continue
        return _broken(graph, chain, number, hop, candidates, as_of, day, cite)
    return ChainCheck(chain)


def _between(graph: KnowledgeGraph, hop: Hop, left: int, right: int) -> list[Relation]:
    relations = [graph.relations[p] for p in graph.out_edges[left] + graph.in_edges[left]]
    found = []
    for relation in relations:
        forward = relation.source == left and relation.target == right
        backward = relation.source == right and relation.target == left
        wanted = (forward or backward) if hop.relation is None else (
            relation.relation == hop.relation and (forward if hop.way == "forward" else backward))
        if wanted:
            found.append(relation)
    return found


def _broken(graph: KnowledgeGraph, chain: Chain, number: int, hop: Hop, candidates: list[Relation],
            as_of: str | None, day: str, cite: Callable[[list[int]], dict[int, str]]) -> ChainCheck:
    when = f"on {as_of}" if as_of else "now"
    if not candidates:
        return ChainCheck(chain, number, f"no relation {hop} in the knowledge graph")
    latest = max(candidates, key=lambda r: (r.superseded_by is not None, r.id))
    stated = _edge(graph, latest)
    if latest.superseded_by is not None:
        newer = next(r for r in graph.relations if r.id == latest.superseded_by)
        chunks = sorted({s.chunk_id for s in newer.sources})
        return ChainCheck(chain, number, f"{stated} does not hold {when}: superseded by {_edge(graph, newer)}"
                                         f"{f' from {latest.valid_until}' if latest.valid_until else ''}",
                          sorted(set(cite(chunks).values())))
    return ChainCheck(chain, number, f"{stated} does not hold {when}{_bounds(latest, day)}")


def _bounds(relation: Relation, day: str) -> str:
    """Why a relation that is not superseded does not hold on `day`: it ended, or starts later."""
    if relation.valid_until and not within(day, None, relation.valid_until):
        return f" (ended {relation.valid_until})"
    return f" (from {relation.valid_from})" if relation.valid_from else ""


def _edge(graph: KnowledgeGraph, relation: Relation) -> str:
    return f"{graph.entities[relation.source].name} {relation.relation} {graph.entities[relation.target].name}"
