"""The graphs `hopgraph export` writes, built from the store as plain columns (writers.py writes them).

Three graphs, one per `--what`:
- `links`: the name-link graph. A node per active chunk (its document's title and source, where it
  is cited, its text); an edge per link, source chunk → target chunk, with the name that made it.
- `kg`: the knowledge graph. A node per entity (type, description, aliases, source chunks); an edge
  per typed relation (type, description, source chunks, valid_from / valid_until, superseded_by, and
  whether it holds on the day of the export: `current`). Co-occurrence edges (the no-LLM concept
  graph's CO_OCCURS, thousands beside a hundred typed relations) only with `with_cooccurrence`.
  Every node and edge names its source documents (`documents`: their sources, `document_titles`)
  beside the chunk ids.
- `communities`: the knowledge graph again, each entity carrying its community at every level of the
  Leiden tree (`community_0` the coarsest … `community` the finest): what Gephi colours a partition by.

Every attribute is GraphML-safe: a string, a number or a boolean, never None. A missing string is
"", a missing id is -1 (ids start at 1), a missing page is 0 (pages count from 1); lists are joined
with `LIST_SEPARATOR`, because GraphML and GEXF have no list type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from hopgraph.errors import HopgraphError
from hopgraph.kg.facts import CO_OCCURS
from hopgraph.records.communities import CommunityTree
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.store.base import Store

WHAT = ("links", "kg", "communities")
LIST_SEPARATOR = "|"
NONE_ID = -1
# Characters XML 1.0 cannot hold at all (a chunk of a damaged PDF can carry them): dropped, or the
# GraphML and GEXF files would not parse.
XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

Value = str | int | float | bool


@dataclass
class ExportGraph:
    """A directed graph as columns: `nodes[attr][i]` is node i's value, `edges[k]` is (source node,
    target node) of edge k and `edge_attrs[attr][k]` its value. Every node has a unique `key`
    (`chunk:12`, `entity:3`), the node id of the GEXF and CSV files."""

    what: str
    nodes: dict[str, list[Value]] = field(default_factory=dict)
    edges: list[tuple[int, int]] = field(default_factory=list)
    edge_attrs: dict[str, list[Value]] = field(default_factory=dict)

    @property
    def node_count(self) -> int:
        return len(self.nodes.get("key", []))

    @property
    def edge_count(self) -> int:
        return len(self.edges)


def build_export_graph(store: Store, what: str, with_cooccurrence: bool = False) -> ExportGraph:
    """The graph `--what` names, from the store as it is; an error naming the step to run when the
    store holds none of it. `with_cooccurrence` keeps the knowledge graph's co-occurrence edges."""
    if what == "links":
        return links_graph(store)
    if what in ("kg", "communities"):
        kg, documents = _knowledge_graph(store), DocumentsOf.of(store)
        if what == "kg":
            return kg_graph(kg, documents=documents, with_cooccurrence=with_cooccurrence)
        return communities_graph(kg, _community_tree(store), documents, with_cooccurrence)
    raise HopgraphError(f"unknown graph to export {what!r}: choose one of {', '.join(WHAT)}")


def _knowledge_graph(store: Store) -> KnowledgeGraph:
    if not store.has_knowledge_graph():
        raise HopgraphError(f"{store.location} has no knowledge graph to export: run `hopgraph extract` or "
                            "`hopgraph import-triples FILE` first")
    return store.knowledge_graph()


def _community_tree(store: Store) -> CommunityTree:
    tree = store.community_tree()
    if tree is None:
        raise HopgraphError(f"{store.location} has no communities of its current knowledge graph: run "
                            "`hopgraph communities` first")
    return tree


def links_graph(store: Store) -> ExportGraph:
    table = store.chunk_table()
    if not len(table):
        raise HopgraphError(f"{store.location} has no chunks to export: run `hopgraph index PATH...` first")
    ids = [int(i) for i in table.ids]
    docs = [int(d) for d in table.doc_ids]
    graph = ExportGraph("links", {
        "key": [f"chunk:{i}" for i in ids],
        "label": [safe(table.source_of_row(row)) for row in range(len(ids))],
        "kind": ["chunk"] * len(ids),
        "chunk": ids, "doc": docs,
        "title": [safe(table.titles[d]) for d in docs],
        "source": [safe(table.sources.get(d, "")) for d in docs],
        "ord": list(table.ords),
        "page": [page or 0 for page in table.pages],
        "text": [safe(text) for text in table.texts],
    })
    rows = table.row_of()
    name_graph = store.name_graph()
    names = {name.id: safe(name.surface) for name in name_graph.names}
    kept = [link for link in name_graph.links if link.source_chunk in rows and link.target_chunk in rows]
    graph.edges = [(rows[link.source_chunk], rows[link.target_chunk]) for link in kept]
    graph.edge_attrs = {
        "relation": ["LINKS_TO"] * len(kept),
        "label": [names.get(link.name_id, "") for link in kept],
        "name": [names.get(link.name_id, "") for link in kept],
        "name_id": [link.name_id for link in kept],
        "weight": [float(link.weight) for link in kept],
    }
    return graph


@dataclass(frozen=True)
class DocumentsOf:
    """Chunk id → its document's source and title: what a reader recognises beside a chunk id."""

    source: dict[int, str]
    title: dict[int, str]

    @classmethod
    def of(cls, store: Store) -> DocumentsOf:
        docs = {d.id: d for d in store.active_documents().values()}
        chunk_doc = {chunk: doc for chunk, doc in store.chunk_docs().items() if doc in docs}
        return cls({c: safe(docs[d].source) for c, d in chunk_doc.items()},
                   {c: safe(docs[d].title) for c, d in chunk_doc.items()})

    def columns(self, chunk_lists: list[list[int]]) -> dict[str, list[Value]]:
        """`documents` and `document_titles` per row: each row's chunks' documents, first seen first."""
        def named(chunks: list[int], of: dict[int, str]) -> str:
            return joined(dict.fromkeys(of[c] for c in chunks if c in of))
        return {"documents": [named(chunks, self.source) for chunks in chunk_lists],
                "document_titles": [named(chunks, self.title) for chunks in chunk_lists]}


def kg_graph(kg: KnowledgeGraph, what: str = "kg", documents: DocumentsOf | None = None,
             with_cooccurrence: bool = False) -> ExportGraph:
    documents = documents or DocumentsOf({}, {})
    entities = sorted(kg.entities.values(), key=lambda e: e.id)
    position = {entity.id: i for i, entity in enumerate(entities)}
    graph = ExportGraph(what, {
        "key": [f"entity:{e.id}" for e in entities],
        "label": [safe(e.name) for e in entities],
        "kind": ["entity"] * len(entities),
        "entity": [e.id for e in entities],
        "type": [e.type for e in entities],
        "description": [safe(e.description) for e in entities],
        "aliases": [joined(safe(a) for a in e.aliases) for e in entities],
        "chunks": [joined(sorted(e.chunks)) for e in entities],
        **documents.columns([sorted(e.chunks) for e in entities]),
    })
    relations = [r for r in kg.relations if r.source in position and r.target in position
                 and (with_cooccurrence or r.relation != CO_OCCURS)]
    graph.edges = [(position[r.source], position[r.target]) for r in relations]
    chunks = [sorted({s.chunk_id for s in r.sources}) for r in relations]
    graph.edge_attrs = {
        "relation": [r.relation for r in relations],
        "label": [r.relation for r in relations],
        "relation_id": [r.id for r in relations],
        "description": [safe(r.description) for r in relations],
        "source_chunk": [found[0] if found else NONE_ID for found in chunks],
        "source_chunks": [joined(found) for found in chunks],
        **documents.columns(chunks),
        "weight": [float(len(found)) for found in chunks],
        "valid_from": [r.valid_from or "" for r in relations],
        "valid_until": [r.valid_until or "" for r in relations],
        "superseded_by": [NONE_ID if r.superseded_by is None else r.superseded_by for r in relations],
        "current": [r.holds_on() for r in relations],  # today: not superseded, not ended, begun
    }
    return graph


def communities_graph(kg: KnowledgeGraph, tree: CommunityTree, documents: DocumentsOf | None = None,
                      with_cooccurrence: bool = False) -> ExportGraph:
    """The knowledge graph with `community_<level>` per level and `community` (the finest) per entity;
    -1 for an entity in no community (one the tree was not built over)."""
    graph = kg_graph(kg, "communities", documents, with_cooccurrence)
    entity_ids = [int(e) for e in graph.nodes["entity"]]
    finest = [NONE_ID] * len(entity_ids)
    for level in range(tree.levels):
        member_of = {entity: c.id for c in tree.at_level(level) for entity in c.entities}
        column = [member_of.get(entity, NONE_ID) for entity in entity_ids]
        graph.nodes[f"community_{level}"] = list(column)
        finest = [c if c != NONE_ID else f for c, f in zip(column, finest, strict=True)]
    graph.nodes["community"] = list(finest)
    return graph


def safe(text: str) -> str:
    return XML_ILLEGAL.sub("", text)


def joined(values: Iterable[object]) -> str:
    return LIST_SEPARATOR.join(str(v) for v in values)
