"""GET /health: whether the server is up, open to anyone (no token). Of the store it says only which
state this server answers from — the opaque `generation` every index run writes (and the knowledge
graph's), and since when — so a deploy script or a load balancer can tell a replica that has
caught up with a write from one still loading it; nothing of the store's contents."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

import hopgraph
from hopgraph.serve.shared_graph import Graph

router = APIRouter(tags=["health"])


@router.get("/health")
def health(graph: Graph) -> dict[str, Any]:
    serving = graph.serving()
    return {"status": "ok", "version": hopgraph.__version__, "generation": serving.generation,
            "graph_generation": serving.graph_generation, "serving_since": round(serving.since, 3)}
