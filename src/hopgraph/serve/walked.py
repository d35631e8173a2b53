"""The name-link graph a search walked for one question, as the inspector's Walk tab draws it.

Built from the ranked hits alone, which say how each was reached: the question, the seeds (ranker
hits and the chunks the question names), the names followed (`Hit.via`) and the chunks they led to
(links and the PPR walk). A PPR hit's mass (`stage_score`) sizes its node."""

from __future__ import annotations

from typing import Any

from hopgraph.records.retrieval import Hit

QUESTION = "question"
FOLLOWED = ("link", "ppr", "graph")  # hits reached over a name from another chunk


def walked_graph(hits: list[Hit]) -> dict[str, Any]:
    """`nodes` (question, chunk and name nodes) and `edges` (chunk → name → chunk; question → name →
    chunk for a chunk the question names) of the walk that placed these hits."""
    nodes: dict[str, dict[str, Any]] = {QUESTION: {"id": QUESTION, "kind": QUESTION, "label": "the question"}}
    edges: dict[tuple[str, str], dict[str, Any]] = {}
    for rank, hit in enumerate(hits, start=1):
        kind = "linked" if hit.found_by in FOLLOWED else "seed"
        target = _chunk(hit.chunk_id)
        nodes[target] = {
            "id": target, "kind": kind, "label": f"{hit.title} ({hit.source})" if hit.source else hit.title,
            "chunk": hit.chunk_id, "rank": rank, "found_by": hit.found_by,
            "mass": hit.stage_score if hit.found_by == "ppr" else None}
        if hit.via is None:
            continue
        origin = QUESTION if hit.found_by == "name" else _chunk(hit.via.from_chunk)
        if origin not in nodes:  # walked through a chunk that did not make the top k
            nodes[origin] = {"id": origin, "kind": "walked", "label": hit.via.from_title, "chunk": hit.via.from_chunk,
                             "rank": None, "found_by": "", "mass": None}
        name = f"name:{hit.via.name.casefold()}"
        nodes.setdefault(name, {"id": name, "kind": "name", "label": hit.via.name})
        edges.setdefault((origin, name), {"source": origin, "target": name, "kind": "mentions"})
        edges.setdefault((name, target), {"source": name, "target": target, "kind": "about"})
    return {"nodes": list(nodes.values()), "edges": list(edges.values())}


def _chunk(chunk_id: int) -> str:
    return f"chunk:{chunk_id}"
