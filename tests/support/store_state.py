"""A store's content without its ids: what "the same index" means in the living-index tests.

Every row is named by what it is about — a chunk by (document title, ord, text hash), a name by
(surface, kind, filtered, its document's title) — so a store built incrementally, resumed after a
crash or with documents removed can be compared, row for row, with one built from scratch."""

from __future__ import annotations

import json
from typing import Any

from hopgraph.store import Store


def store_state(store: Store, model: str | None = None, all_vectors: bool = False) -> dict[str, Any]:
    """`model`: also the active chunks' texts that have its vector. `all_vectors`: also every stored
    vector row, (text hash, model), used by a chunk or not — what a withdrawal must not leave behind."""
    table = store.chunk_table()
    chunk = {int(i): (table.titles[int(d)], o, h)
             for i, d, o, h in zip(table.ids.tolist(), table.doc_ids.tolist(), table.ords, table.text_hashes,
                                   strict=True)}
    graph = store.name_graph()
    names = {n.id: (n.surface, n.filtered, table.titles.get(n.doc_id) if n.doc_id else None) for n in graph.names}
    state: dict[str, Any] = {
        "documents": sorted((d.source, d.title, d.content_hash) for d in store.active_documents().values()),
        "chunks": sorted(chunk.values()),
        "names": sorted(names.values(), key=repr),
        "links": sorted((chunk[k.source_chunk], chunk[k.target_chunk], names[k.name_id], round(k.weight, 9))
                        for k in graph.links),
        "abouts": sorted((chunk[a.chunk_id], names[a.name_id], round(a.weight, 9)) for a in graph.abouts),
        "facts": sorted((chunk[f.chunk_id], f.extractor, _payload(f)) for f in store.load_facts()),
        "relations": _relations(store, chunk),
    }
    if model:
        state["vectors"] = sorted(store.cached_vectors(table.text_hashes, model))
    if all_vectors:  # the vector cache has no "list everything" in the store protocols: read the table
        state["all_vectors"] = sorted(tuple(row) for row in store._db.execute("SELECT text_hash, model FROM vectors"))
    return state


def _payload(facts: Any) -> str:
    return json.dumps([[e.name for e in facts.entities], [(r.source, r.relation, r.target) for r in facts.relations]])


def _relations(store: Store, chunk: dict[int, tuple]) -> list:
    graph = store.knowledge_graph()
    name = {e.id: e.name for e in graph.entities.values()}
    return sorted((name[r.source], r.relation, name[r.target], sorted(chunk[s.chunk_id] for s in r.sources))
                  for r in graph.relations)
