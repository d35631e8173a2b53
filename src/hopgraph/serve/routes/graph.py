"""The knowledge graph: GET /entities?q=, GET /entities/{id} (its relations, neighbours and the
chunks stating them), GET /paths (the parameters of `hopgraph paths`), GET /communities."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Path, Query

from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError, InputError
from hopgraph.query.paths import find_entity, parse_follow
from hopgraph.records.communities import EXTRACTIVE, CommunityTree
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation
from hopgraph.serve.errors import ApiError
from hopgraph.serve.routes import JsonResult
from hopgraph.serve.shared_graph import Graph

router = APIRouter(tags=["knowledge graph"])
SHOWN_ENTITIES = 10  # member names listed per community


@router.get("/entities")
def entities(graph: Graph,
             q: str = Query("", max_length=200, description="Part of a name or alias (case-insensitive)."),
             limit: int = Query(20, ge=1, le=200)) -> list[dict[str, Any]]:
    """Entities whose name or an alias contains `q`: exact matches first, then prefixes, then by degree."""
    return graph.read(lambda hg: _matching(hg.knowledge_graph, q.strip().casefold(), limit))


@router.get("/entities/{entity_id}")
def entity(graph: Graph, entity_id: int = Path(ge=0),
           limit: int = Query(50, ge=1, le=1000, description="Relations shown.")) -> dict[str, Any]:
    """One entity with its relations (heaviest first), each with its neighbour and the chunks that state it."""
    return graph.read(lambda hg: _entity_json(hg, entity_id, limit))


@router.get("/paths", response_class=JsonResult)
def paths(graph: Graph,
          to: str = Query(min_length=1, max_length=200, description="The entity the paths lead to (or from)."),
          direction: Literal["in", "out"] = "in",
          max_hops: int = Query(2, ge=1, le=6), max_paths: int = Query(200, ge=1, le=10000),
          end_type: str | None = Query(None, max_length=50, description="Keep paths whose far end has this type."),
          follow: str | None = Query(None, max_length=500, description="Relations to walk, e.g. "
                                     "'SUPPLIES:reverse,USES', or a preset: 'depends-on' (default), 'all'."),
          as_of: str | None = Query(None, max_length=10, description="Only relations holding on this ISO date.")
          ) -> JsonResult:
    """Every relation path into (or out of) an entity, hop by hop, as `hopgraph paths --json` prints them."""

    def walk(hg: HopGraph) -> dict[str, Any]:
        try:
            target = find_entity(hg.knowledge_graph, to)
        except InputError as err:
            raise ApiError(404, str(err)) from None
        found = hg.paths(to, direction, max_hops, max_paths, end_type, parse_follow(follow), as_of)
        cited = hg.store.chunk_citations({hop.chunk_id for path in found for hop in path})
        return {"to": target.name, "paths": [[hop.as_dict() for hop in path] for path in found],
                "citations": {str(chunk): where for chunk, where in sorted(cited.items())}}

    return JsonResult(graph.read(walk))


@router.get("/communities")
def communities(graph: Graph) -> dict[str, Any]:
    """The community tree (levels, sizes, members) with each community's labels and report title,
    where a report was written (`hopgraph reports`). The tree is built on first use and stored, unless
    a write holds the store then: it is built on a reader and stored by a later request, so the
    request never waits for an index run."""
    stored = graph.read(lambda hg: hg.store.community_tree())
    try:
        tree = stored or graph.write_if_free(lambda hg: hg.communities(must_store=False))
    except HopgraphError as err:  # no knowledge graph yet: nothing to partition
        raise ApiError(409, str(err)) from None
    return graph.read(lambda hg: _tree_json(hg, tree))


def _matching(graph: KnowledgeGraph, q: str, limit: int) -> list[dict[str, Any]]:
    degree = {e: len(graph.out_edges[e]) + len(graph.in_edges[e]) for e in graph.entities}

    def closeness(entity: Entity) -> int | None:
        surfaces = [s.casefold() for s in (entity.name, *entity.aliases)]
        if q in surfaces:
            return 0
        if any(s.startswith(q) for s in surfaces):
            return 1
        return 2 if any(q in s for s in surfaces) else None

    ranked = sorted((rank, -degree[e.id], e.name, e.id) for e in graph.entities.values()
                    if (rank := closeness(e)) is not None)
    return [_entity_head(graph.entities[entity_id], degree[entity_id]) for *_, entity_id in ranked[:limit]]


def _entity_head(entity: Entity, degree: int) -> dict[str, Any]:
    return {"id": entity.id, "name": entity.name, "type": entity.type, "aliases": entity.aliases,
            "relations": degree, "chunks": len(entity.chunks)}


def _entity_json(hg: HopGraph, entity_id: int, limit: int) -> dict[str, Any]:
    graph = hg.knowledge_graph
    entity = graph.entities.get(entity_id)
    if entity is None:
        raise ApiError(404, f"no entity with id {entity_id}")
    positions = graph.out_edges[entity_id] + graph.in_edges[entity_id]
    kept = sorted(positions, key=lambda p: (-graph.relations[p].weight, graph.relations[p].id))[:limit]
    relations = [graph.relations[p] for p in kept]
    chunks = {s.chunk_id for r in relations for s in r.sources} | entity.chunks
    cited = hg.store.chunk_citations(chunks)
    return _entity_head(entity, len(positions)) | {
        "description": entity.description,
        "sources": [{"chunk": c, "citation": cited.get(c, "")} for c in sorted(entity.chunks)],
        "neighbours": [_relation_json(graph, r, entity_id, cited) for r in relations]}


def _relation_json(graph: KnowledgeGraph, relation: Relation, entity_id: int, cited: dict[int, str]) -> dict[str, Any]:
    outgoing = relation.source == entity_id
    other = graph.entities[relation.target if outgoing else relation.source]
    return {"relation_id": relation.id, "relation": relation.relation, "direction": "out" if outgoing else "in",
            "entity": {"id": other.id, "name": other.name, "type": other.type},
            "description": relation.description, "valid_from": relation.valid_from,
            "valid_until": relation.valid_until, "superseded_by": relation.superseded_by,
            "sources": [{"chunk": s.chunk_id, "doc": s.doc_id, "citation": cited.get(s.chunk_id, ""),
                         "date": s.date, "until": s.until, "extractor": s.extractor} for s in relation.sources]}


def _tree_json(hg: HopGraph, tree: CommunityTree) -> dict[str, Any]:
    graph = hg.knowledge_graph
    reports = hg.store.stored_reports(hg.settings.llm_model if hg.has_llm else EXTRACTIVE)
    listed = []
    for community in tree.communities:
        report = reports.get(community.hash)
        names = sorted((graph.entities[e].name for e in community.entities if e in graph.entities),
                       key=str.casefold)[:SHOWN_ENTITIES]
        listed.append({"id": community.id, "level": community.level, "parent": community.parent,
                       "children": community.children, "size": community.size, "entities": names,
                       "title": report.title if report else None, "labels": report.labels if report else None})
    stats = tree.stats()
    return {"levels": stats["levels"], "count": stats["communities"], "per_level": stats["per_level"],
            "communities": listed}
