"""An MCP server over one hopgraph store: the tools `ask`, `paths` and `entities`, and the indexed
documents as resources (`hopgraph://documents`, `hopgraph://documents/{id}`), over stdio.

Started by `hopgraph mcp --store hopgraph.db` (cli/integrations.py), which an MCP client (Claude
Desktop, an IDE, `mcp.Client`) launches as a subprocess. Installed by `pip install
'hopgraph[mcp]'`. The store stays open for the server's life, so the search structures load once.
stdout carries the protocol: the HopGraph runs quiet and logging goes to stderr. The server reports
hopgraph's version in its handshake; `ask`'s `mode` is an enum in the tool's input schema.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, Literal, TypeVar

from hopgraph import __version__
from hopgraph.catalog import document_chunks, document_list
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.integrations import missing_extra
from hopgraph.plugins import load_plugins
from hopgraph.query.modes import describe_modes, mode_names
from hopgraph.query.paths import parse_follow
from hopgraph.records.knowledge import Entity

try:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
except ImportError:
    raise missing_extra("mcp") from None

INSTRUCTIONS = ("hopgraph answers multi-hop questions over an indexed collection with cited chunks. "
                "`ask` answers a question (hits, how each was found, the answer with citations); "
                "`entities` finds knowledge-graph entities by name; `paths` lists the relation "
                "paths into or out of one entity, with the chunk stating each hop.")
MAX_ENTITIES = 100
load_plugins()  # a plugin's mode is in the enum, as in `hopgraph ask --help`
Mode = Literal[mode_names()]  # type: ignore[valid-type]  (an enum in the tool's input schema)
DOCUMENTS_URI = "hopgraph://documents"

Tool = TypeVar("Tool", bound=Callable[..., Any])


def user_errors(tool: Tool) -> Tool:
    """Bad input (HopgraphError) comes back as the tool's error message, not a logged traceback."""
    @wraps(tool)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except HopgraphError as err:
            raise ToolError(str(err)) from err
    return checked  # type: ignore[return-value]


ASK_DESCRIPTION = ("Answer a question. mode: {modes}. method (search): e.g. hybrid, hybrid+names+links, ppr. "
                   "Returns the answer with citations, the hits (how each was found), and the retrieval trace.")


def build_server(graph: HopGraph) -> MCPServer:
    """The three tools over `graph`; the caller owns the graph and closes it."""
    server = MCPServer("hopgraph", instructions=INSTRUCTIONS, version=__version__)

    @server.tool(description=ASK_DESCRIPTION.format(modes=describe_modes()))
    @user_errors
    def ask(question: str, mode: Mode = "auto", method: str | None = None, top: int | None = None) -> dict[str, Any]:
        return graph.ask(question, mode, method, top).to_json()

    @server.tool()
    @user_errors
    def paths(to: str, direction: str = "in", max_hops: int = 2, max_paths: int = 50,
              follow: str | None = None, as_of: str | None = None) -> list[list[dict[str, Any]]]:
        """Relation paths into (direction=in) or out of (out) the entity named `to`, each hop with
        the chunk that states it. follow: relations to walk, e.g. 'SUPPLIES:reverse,USES', or
        'depends-on' / 'all'. as_of: only relations holding on this ISO date."""
        found = graph.paths(to, direction, max_hops, max_paths, follow=parse_follow(follow), as_of=as_of)
        return [[hop.as_dict() for hop in path] for path in found]

    @server.tool()
    @user_errors
    def entities(q: str, limit: int = 20) -> list[dict[str, Any]]:
        """Knowledge-graph entities whose name or an alias contains `q` (case-insensitive)."""
        return [entity_json(entity) for entity in find_entities(graph, q, limit)]

    add_document_resources(server, graph)
    return server


def add_document_resources(server: MCPServer, graph: HopGraph) -> None:
    """The indexed documents as resources: the list, and each document's chunks with citations."""

    @server.resource(DOCUMENTS_URI, name="documents", mime_type="application/json",
                     description="Every indexed document: id, title, source, number of chunks.")
    def documents() -> list[dict[str, Any]]:
        return document_list(graph)

    @server.resource(DOCUMENTS_URI + "/{doc_id}", name="document", mime_type="application/json",
                     description="One indexed document's chunks in order, each with its citation and text.")
    def document(doc_id: str) -> dict[str, Any]:
        if not doc_id.isdigit():
            raise ResourceNotFoundError(f"a document id is a whole number, got {doc_id!r}")
        try:
            return document_chunks(graph, int(doc_id))
        except HopgraphError as err:  # the client's "not found", not a logged traceback
            raise ResourceNotFoundError(str(err)) from err


def find_entities(graph: HopGraph, query: str, limit: int) -> list[Entity]:
    """Name matches first, then aliases; within each, the entities stated in most chunks first."""
    if not 1 <= limit <= MAX_ENTITIES:
        raise HopgraphError(f"limit must be between 1 and {MAX_ENTITIES}, got {limit}")
    needle = query.strip().casefold()
    if not needle:
        raise HopgraphError("the entity query is empty")
    found = [e for e in graph.knowledge_graph.entities.values()
             if any(needle in name.casefold() for name in (e.name, *e.aliases))]
    found.sort(key=lambda e: (needle not in e.name.casefold(), -len(e.chunks), e.name))
    return found[:limit]


def entity_json(entity: Entity) -> dict[str, Any]:
    return {"id": entity.id, "name": entity.name, "type": entity.type, "description": entity.description,
            "aliases": entity.aliases, "chunks": sorted(entity.chunks)}


def serve_stdio(graph: HopGraph) -> None:
    """Serve until the client closes stdin."""
    build_server(graph).run("stdio")
