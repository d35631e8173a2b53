"""The web inspector: the page at `/`, its static files, and the JSON it reads under `/api/inspect/`.

A router, not an app: `hopgraph serve` includes it, and reads from the shared reader it keeps in
`app.state.graph` (serve/shared_graph.py; an app of its own may set `app.state.hopgraph` instead).
The page is plain HTML, CSS and JS with cytoscape vendored beside it (static/vendor/, with its
licence): nothing is built, nothing is fetched from elsewhere. Starlette's StaticFiles serves them
from the installed package.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from hopgraph.catalog import example_question
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError, InputError
from hopgraph.query.modes.search import routed_mode
from hopgraph.query.neighbourhood import entity_relations, question_neighbourhood
from hopgraph.query.question import MAX_QUESTION_CHARS
from hopgraph.records.communities import CommunityReport, CommunityTree
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval import stages
from hopgraph.retrieval.inspection import inspect_retrieval
from hopgraph.retrieval.router import AUTO
from hopgraph.serve.routes import require_json
from hopgraph.serve.walked import walked_graph

router = APIRouter()  # the JSON the page asks for
pages = APIRouter()  # the page and its static files (both behind the token under `hopgraph serve`)
MAX_TOP = 50
MAX_CHUNK_LINKS = 20  # links listed under an opened chunk


def static_files() -> StaticFiles:
    """The page's files under `/static/`, served by Starlette from the installed package (it refuses
    any path that leaves the folder, and answers conditional requests)."""
    return StaticFiles(packages=[("hopgraph.serve", "static")])


def hopgraph_of(request: Request) -> Iterator[HopGraph]:
    """The HopGraph to read from: under `hopgraph serve`, a lease on the shared reader for the whole
    request (serve/shared_graph.py); else the one an app keeps in `app.state.hopgraph`."""
    shared = getattr(request.app.state, "graph", None)
    if shared is not None:
        with shared.reading() as reader:
            yield reader
        return
    hg = getattr(request.app.state, "hopgraph", None)
    if hg is None:
        raise HTTPException(503, "the server has no store open (app.state.hopgraph is not set)")
    yield hg


Graph = Annotated[HopGraph, Depends(hopgraph_of)]


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # as POST /ask: wrong JSON types are 422

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    method: str = Field(AUTO, max_length=100)
    top: int | None = Field(None, ge=1, le=MAX_TOP)


@pages.get("/", response_class=HTMLResponse, include_in_schema=False)
def page() -> HTMLResponse:
    return HTMLResponse(resources.files("hopgraph.serve").joinpath("static", "index.html").read_bytes())


@router.post("/api/inspect/ask", dependencies=[Depends(require_json)])
def inspect_ask(body: AskBody, hg: Graph) -> dict[str, Any]:
    """The answer (as `ask --json` prints it) and every retrieval stage behind it."""
    try:
        return inspect_question(hg, body.question, body.method, body.top)
    except InputError as err:
        raise HTTPException(400, str(err)) from err


def inspect_question(hg: HopGraph, question: str, method: str, top: int | None) -> dict[str, Any]:
    """Search with `method` (answered, with citations), then the stages of that very search, and
    the mode `hopgraph ask` would answer the question in: the stages are always a search's, also
    when the router sends the question to global search (the page says so, and can ask /ask for
    that mode's answer)."""
    checked = hg.routed(hg.question(question, method=method, top=top))  # routed once: shown, and used by `auto`
    asked = hg.ask(checked)
    if asked.retrieval is None:  # search mode always retrieves; this is a guard, not a branch
        raise HopgraphError(f"{asked.mode} mode retrieved nothing to inspect")
    budget = Budget(top=hg.settings.top if top is None else top, seeds=hg.settings.seeds)
    routed = method.strip().lower() == AUTO
    route = checked.route
    inspection = inspect_retrieval(hg.search_index, asked.question, asked.retrieval, budget, hg.settings.rrf_k,
                                   route, routed)
    return {"answer": asked.to_json(), "stages": inspection.to_json(), "routed_mode": routed_mode(route),
            "walk": walked_graph(asked.hits)}


@router.get("/api/inspect/placeholder")
def placeholder(hg: Graph) -> dict[str, str]:
    """An example question about the open store (a name in it), for the question box."""
    return {"question": example_question(hg)}


@router.get("/api/inspect/chunk/{chunk_id}")
def chunk(chunk_id: int, hg: Graph) -> dict[str, Any]:
    """A chunk's text, where it comes from, and the chunks its names link to."""
    index = hg.search_index
    row = index.row_of_chunk.get(chunk_id)
    if row is None:
        raise HTTPException(404, f"no chunk {chunk_id} in the index")
    links = [{"to_chunk": int(index.table.ids[target]), "to_title": index.title_of_row(target),
              "name": index.name_surfaces.get(name_id, "?")}
             for target, _, name_id in stages.linked_from(index, [row])[:MAX_CHUNK_LINKS]]
    return {"chunk": chunk_id, "doc": int(index.table.doc_ids[row]), "title": index.title_of_row(row),
            "source": index.source_of_row(row), "text": index.table.texts[row], "links": links}


@router.get("/api/inspect/neighbourhood")
def neighbourhood(hg: Graph, question: Annotated[str, Query(min_length=1, max_length=MAX_QUESTION_CHARS)]
                  ) -> dict[str, Any]:
    """The question's entities and those within two hops, with the relations between them."""
    found = question_neighbourhood(hg.graph_view, hg.search_index, question.strip())
    return {"seeds_from": found.seeds_from, "nodes": found.nodes, "edges": found.edges}


@router.get("/api/inspect/entity/{entity_id}")
def entity(entity_id: int, hg: Graph) -> dict[str, Any]:
    """One entity and its relations, each with the sentences that state it."""
    graph = hg.knowledge_graph
    if entity_id not in graph.entities:
        raise HTTPException(404, f"no entity {entity_id} in the knowledge graph")
    return entity_relations(graph, entity_id, hg.chunk_texts)


@router.get("/api/inspect/community-tree")
def community_tree(request: Request) -> dict[str, Any]:
    """The community tree, each community with its labels (extractive reports: no LLM is called).
    The tree and its reports are stored on first use, so under `hopgraph serve` this is a write."""
    shared = getattr(request.app.state, "graph", None)
    if shared is not None:
        return shared.write(tree_outline)
    return tree_outline(next(hopgraph_of(request)))


def tree_outline(hg: HopGraph) -> dict[str, Any]:
    try:
        tree = hg.communities()
    except HopgraphError as err:  # no graph yet: the page says what to run
        return {"levels": 0, "communities": [], "note": str(err)}
    reports = {report.community_id: report for report in hg.reports(use_llm=False).reports}
    return {"levels": tree.levels, "communities": outline(tree, reports), "note": ""}


def outline(tree: CommunityTree, reports: dict[int, CommunityReport]) -> list[dict[str, Any]]:
    """Each community as the page draws it: its place in the tree, size, labels and key entities."""
    out = []
    for community in tree.communities:
        report = reports.get(community.id)
        out.append({"id": community.id, "level": community.level, "parent": community.parent,
                    "children": community.children, "size": community.size,
                    "title": report.title if report else f"community {community.id}",
                    "labels": (report.labels or []) if report else [],
                    "entities": report.entities[:6] if report else []})
    return out
