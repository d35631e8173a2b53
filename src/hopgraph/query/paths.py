"""Path queries over the knowledge graph: every route into (or out of) an entity, hop by hop.

Breadth-first, so shorter paths come first; a node may not repeat *within* a path, but there is
no global seen-set, so two routes through different intermediates are both reported.
"""

from __future__ import annotations

from collections import deque

from hopgraph.errors import InputError
from hopgraph.kg.facts import CO_OCCURS
from hopgraph.kg.resolution import normalise
from hopgraph.llm import LLMClient
from hopgraph.query.local import GraphView, question_entities
from hopgraph.query.writers import ChunkTexts, Draft, chain_text, extractive_from_paths, llm_answer, relation_hop
from hopgraph.records.dates import check_date, today
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Path
from hopgraph.store.base import RouteStore


def find_entity(graph: KnowledgeGraph, name: str) -> Entity:
    """By name or alias (case-insensitive), then by normalised name; else an error with suggestions."""
    entity = graph.find(name)
    if entity is not None:
        return entity
    key = normalise(name)
    for candidate in graph.entities.values():
        if key and any(normalise(s) == key for s in (candidate.name, *candidate.aliases)):
            return candidate
    # A longer or shorter form of one entity's name, word for word ("Plushon Seating Systems" for
    # "Plushon"): taken only when exactly one entity fits, as resolution's short-form rule does.
    fits = {c.id: c for c in graph.entities.values()
            for s in (c.name, *c.aliases) if key and _word_prefix(normalise(s), key)}
    if len(fits) == 1:
        return next(iter(fits.values()))
    close = sorted(e.name for e in graph.entities.values() if key and key.split()[0] in normalise(e.name))[:5]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise InputError(f"no entity called {name!r} in the knowledge graph{hint}")


def _word_prefix(a: str, b: str) -> bool:
    """Whether one of the two names is the other's first words."""
    short, long = sorted((a, b), key=len)
    return bool(short) and long.startswith(short + " ")


# "A depends on B" for each relation of the default vocabulary: a buyer on its supplier (SUPPLIES read in
# reverse), a product on the parts it uses, a firm on the town of its plant, an owner on what it owns, an
# organisation on its members, an effect on its cause, a person on whom they report to.
DEPENDS_ON = {"SUPPLIES": "reverse", "USES": "forward", "LOCATED_IN": "forward", "OWNS": "forward",
              "PART_OF": "reverse", "CAUSED_BY": "forward", "REPORTS_TO": "forward"}
# Relations that say nothing about who depends on whom: walked only when --follow names them.
UNDIRECTED = frozenset({"RELATED_TO", CO_OCCURS})
PRESETS = ("depends-on", "all")
Follow = dict[str, str] | str | None  # relation → "forward" | "reverse", a preset name, or None (depends-on)


def parse_follow(spec: str | None) -> Follow:
    """'SUPPLIES:reverse,USES,LOCATED_IN' → {'SUPPLIES': 'reverse', 'USES': 'forward', …}; a preset
    name ('depends-on', 'all') as it is; None or '' → None, the default (depends-on)."""
    if not spec:
        return None
    if spec.strip().lower() in PRESETS:
        return spec.strip().lower()
    follow = {}
    for part in spec.split(","):
        relation, _, way = part.strip().partition(":")
        way = way.strip().lower() or "forward"
        if way not in ("forward", "reverse") or not relation.strip():
            raise InputError(f"--follow item {part!r}: use RELATION or RELATION:forward|reverse, or one of "
                             f"{', '.join(PRESETS)}")
        follow[relation.strip().upper()] = way
    return follow


def resolve_follow(graph: KnowledgeGraph, follow: Follow) -> dict[str, str]:
    """The senses to walk. Default ("depends-on"): DEPENDS_ON for the default vocabulary and every other
    typed relation forward, whatever direction the vocabulary stores them in; "all": every relation
    forward. Neither walks RELATED_TO or co-occurrence: those edges serve communities, not paths."""
    if isinstance(follow, dict):
        return follow
    typed = {r.relation for r in graph.relations} - UNDIRECTED
    if follow == "all":
        return dict.fromkeys(typed, "forward")
    return {relation: DEPENDS_ON.get(relation, "forward") for relation in typed}


def _steps(graph: KnowledgeGraph, node: int, direction: str, follow: dict[str, str]) -> list[tuple[int, int]]:
    """(relation position, far entity) for each edge a walk may take from `node`.

    Walking "in" to a node takes the edges that point at it (u → node) for relations followed
    forward, and the edges that leave it (node → u) for relations followed in reverse — so with
    SUPPLIES reversed, "depends on" chains (a buyer ← its supplier ← …) are walked the right way.
    """
    pointing_in, pointing_out = graph.in_edges[node], graph.out_edges[node]
    if direction == "out":
        pointing_in, pointing_out = pointing_out, pointing_in
    steps = []
    for positions, way in ((pointing_in, "forward"), (pointing_out, "reverse")):
        for position in positions:
            relation = graph.relations[position]
            if follow.get(relation.relation) == way:
                steps.append((position, relation.source if relation.target == node else relation.target))
    return sorted(steps, key=lambda step: -graph.relations[step[0]].weight)


def check_as_of(as_of: str | None) -> str | None:
    """The date a query asks about, checked (None: today's facts); InputError naming --as-of."""
    if as_of is None:
        return None
    try:
        return check_date(as_of)
    except ValueError as err:
        raise InputError(f"--as-of: {err}") from None


def find_paths(graph: KnowledgeGraph, to: str, direction: str = "in", max_hops: int = 2, max_paths: int = 200,
               end_type: str | None = None, follow: Follow = None, as_of: str | None = None,
               walker: RouteStore | None = None) -> list[Path]:
    """Paths that lead to `to` (direction "in") or away from it ("out"), shortest first.

    Each path is listed from its far end to `to` ("in") or from `to` outwards ("out"), every hop as
    the stored edge (source, relation, target) with the chunk that states it. `follow` chooses the
    relations walked and their sense (default "depends-on": see `resolve_follow`); `as_of` keeps only
    relations that hold on that date, by default today (an ended or superseded fact is no route).
    With `end_type`, only paths whose far end has that type are reported; shorter paths are still
    walked through. `walker`: a store that walks the routes itself (PostgreSQL's `WITH RECURSIVE`),
    under the same rules.
    """
    if direction not in ("in", "out"):
        raise InputError(f"direction must be 'in' or 'out', not {direction!r}")
    if max_hops < 1 or max_paths < 1:
        raise InputError("max hops and max paths must be at least 1")
    day = check_as_of(as_of) or today()  # one day for the whole walk, even across midnight
    start = find_entity(graph, to)
    senses = resolve_follow(graph, follow)
    wanted = end_type.upper() if end_type else None
    if walker is not None:
        return _walked_in_store(graph, walker, start.id, senses, direction, max_hops, max_paths, wanted, day)
    found: list[Path] = []
    queue: deque[tuple[int, tuple[int, ...], frozenset[int]]] = deque([(start.id, (), frozenset({start.id}))])
    while queue and len(found) < max_paths:
        node, edges, on_path = queue.popleft()
        if len(edges) >= max_hops:
            continue
        for position, far in _steps(graph, node, direction, senses):
            if far in on_path or not graph.relations[position].holds_on(day):
                continue
            route = (*edges, position)
            if wanted is None or graph.entities[far].type == wanted:
                found.append(_as_hops(graph, route, direction))
                if len(found) >= max_paths:
                    break
            queue.append((far, route, on_path | {far}))
    return found


def _walked_in_store(graph: KnowledgeGraph, walker: RouteStore, start: int, senses: dict[str, str],
                     direction: str, max_hops: int, max_paths: int, wanted: str | None,
                     day: str) -> list[Path]:
    """The routes the store walked, as paths; within one length, the heavier edges first, as the
    breadth-first walk orders them. Which relations hold on `day` is decided here, by the same
    `holds_on` as the Python walk, so the SQL walk can never disagree about dates."""
    holding = [r.id for r in graph.relations if r.holds_on(day)]
    allowed = None if len(holding) == len(graph.relations) else holding
    position = {relation.id: i for i, relation in enumerate(graph.relations)}
    routes = [tuple(position[r] for r in route) for route in
              walker.relation_routes(start, senses, direction, max_hops, max_paths, allowed, wanted)]
    routes.sort(key=lambda route: (len(route), [-graph.relations[p].weight for p in route]))
    return [_as_hops(graph, route, direction) for route in routes]


def _as_hops(graph: KnowledgeGraph, route: tuple[int, ...], direction: str) -> Path:
    ordered = reversed(route) if direction == "in" else iter(route)  # far end first for "in"
    return [relation_hop(graph, graph.relations[position]) for position in ordered]


def answer_paths(question: str, view: GraphView, chunk_texts: ChunkTexts,
                 client: LLMClient | None) -> tuple[Draft, list[Path], str]:
    """Every path of up to three hops into each entity the question names, answered by the LLM
    when there is one, else hop by hop with the sentence that states each hop; and a note when the
    question names no entity of the graph."""
    entities = list(dict.fromkeys(question_entities(view, question)))
    if not entities:
        return Draft("No entity of the question is in the knowledge graph."), [], "no entity found"
    found: list[Path] = []
    for entity_id in entities:
        # Every stated relation forward: the question's wording says which of them it asks about, and
        # the reader (LLM or person) picks; depends-on would drop "who supplies X?" answers.
        found += find_paths(view.graph, view.graph.entities[entity_id].name, "in", max_hops=3, max_paths=50,
                            follow="all")
    return answer_from_paths(question, found, view.graph, chunk_texts, client), found, ""


def answer_from_paths(question: str, found: list[Path], graph: KnowledgeGraph, chunk_texts: ChunkTexts,
                      client: LLMClient | None) -> Draft:
    """The paths as evidence: read by the LLM when there is one, else hop by hop with the sentence
    that states each hop."""
    texts = chunk_texts({hop.chunk_id for path in found for hop in path})
    if client is not None and found:
        return llm_answer(client, question, [chain_text(p) for p in found], texts)
    return extractive_from_paths(found, texts, graph)
