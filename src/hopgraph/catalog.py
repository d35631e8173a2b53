"""What a store holds, document by document: the list a user browses (MCP resources, the
inspector's documents view) and one document's chunks in order with their citations."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from hopgraph.engine import HopGraph
from hopgraph.errors import InputError


def example_question(hg: HopGraph) -> str:
    """A question about this store, for a search box's placeholder: about the name that links the
    most chunks (what a multi-hop question would follow), else the first document's title."""
    graph = hg.store.name_graph()
    made = Counter(link.name_id for link in graph.links)
    surfaces = {name.id: name.surface for name in graph.names if not name.filtered}
    linking = [name_id for name_id, _ in made.most_common() if name_id in surfaces]
    if linking:
        return f"What do the documents say about {surfaces[linking[0]]}?"
    documents = sorted(hg.store.active_documents().values(), key=lambda d: d.id)
    return f"What is {documents[0].title} about?" if documents else "Index documents first, then ask about them."


def document_list(hg: HopGraph) -> list[dict[str, Any]]:
    """Every indexed document: id, title, source, how its title was found, when its text was written,
    its chunk count, the names that stand for it (those that make links) and the links out of and
    into its chunks."""
    documents = sorted(hg.store.active_documents().values(), key=lambda d: d.id)
    if not documents:  # an empty store has no search index to count in
        return []
    index = hg.search_index
    doc_of_row = np.asarray(index.table.doc_ids)
    made = index.links.tocoo()  # (source row, target row) of every link
    chunks, links_out, links_in = (_per_document(doc_of_row[rows]) for rows in (slice(None), made.row, made.col))
    names = _names_by_document(hg, {d.id: d.title for d in documents})
    return [{"id": d.id, "title": d.title, "source": d.source, "title_source": d.title_source,
             "added_at": d.added_at, "chunks": chunks.get(d.id, 0), "names": names.get(d.id, []),
             "links_out": links_out.get(d.id, 0), "links_in": links_in.get(d.id, 0)}
            for d in documents]


def _per_document(doc_ids: np.ndarray) -> dict[int, int]:
    """Document id → how often it occurs in `doc_ids` (one count over the array, not a Python loop)."""
    ids, counts = np.unique(doc_ids, return_counts=True)
    return dict(zip(ids.tolist(), counts.tolist(), strict=True))


def _names_by_document(hg: HopGraph, titles: dict[int, str]) -> dict[int, list[str]]:
    """Document id → the names that stand for it and make links (a filtered name makes none): its
    title first when it is one, then the others alphabetically."""
    names: dict[int, set[str]] = defaultdict(set)
    for name in hg.store.name_graph().names:
        if name.doc_id is not None and not name.filtered:
            names[name.doc_id].add(name.surface)
    return {doc_id: sorted(surfaces, key=lambda s: (s != titles.get(doc_id), s.casefold()))
            for doc_id, surfaces in names.items()}


def document_chunks(hg: HopGraph, doc_id: int) -> dict[str, Any]:
    """One document with its chunks in order (id, position, citation, text); an unknown id is an error."""
    found = next((d for d in hg.store.active_documents().values() if d.id == doc_id), None)
    if found is None:
        raise InputError(f"no document with id {doc_id}")
    table = hg.search_index.table
    rows = np.flatnonzero(np.asarray(table.doc_ids) == doc_id).tolist()
    ids = [int(table.ids[row]) for row in rows]
    texts, citations = hg.chunk_texts(ids), hg.store.chunk_citations(ids)
    chunks = [{"id": chunk, "ord": table.ords[row], "citation": citations.get(chunk, ""), "text": texts.get(chunk, "")}
              for row, chunk in zip(rows, ids, strict=True)]
    return {"id": found.id, "title": found.title, "source": found.source, "title_source": found.title_source,
            "chunks": chunks}
