"""Framework adapters: hopgraph's retrieval behind the interfaces other libraries already call.

`hopgraph.integrations.langchain` (a langchain-core retriever), `hopgraph.integrations.llamaindex`
(a llama-index-core retriever) and `hopgraph.integrations.mcp_server` (ask / paths / entities as
MCP tools over stdio). Each needs its optional extra; importing one without it raises
`MissingExtra`, which names the install line. What the adapters share lives here: how a store
argument becomes a HopGraph, and what each hit says about itself as flat metadata.
"""

from __future__ import annotations

from typing import Any

from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.extras import MissingExtra
from hopgraph.records.retrieval import Hit


def missing_extra(extra: str) -> MissingExtra:
    """What an adapter raises when importing its framework failed: the extra that installs it."""
    return MissingExtra(extra, f"hopgraph.integrations.{extra}")


def open_graph(graph: HopGraph | str) -> HopGraph:
    """A HopGraph as given, or the existing store at that path or URL opened for reading (a
    mistyped path is an error, not a new empty store)."""
    if isinstance(graph, HopGraph):
        return graph
    if isinstance(graph, str):
        return HopGraph(graph, create=False)
    raise HopgraphError(f"expected a HopGraph or a store path, got {type(graph).__name__}")


def hit_metadata(hit: Hit) -> dict[str, Any]:
    """What a framework document carries beside the text. Flat scalars only: LlamaIndex's vector
    stores and LangChain's serialisers both refuse nested values. `score` is 1/rank (monotone, so
    a framework's cut-off keeps what the ranking kept); `stage_score` is the number of the stage
    that placed the hit and `rank_<ranker>` each ranker's rank of a fused hit."""
    return {
        "chunk_id": hit.chunk_id,
        "doc_id": hit.doc_id,
        "title": hit.title,
        "source": hit.source,
        "score": hit.score,
        "stage_score": hit.stage_score,
        "found_by": hit.found_by,
        "how": hit.describe_path(),
        "via": hit.via.name if hit.via else None,
        "via_chunk_id": hit.via.from_chunk if hit.via else None,
        "via_title": hit.via.from_title if hit.via else None,
        **{f"rank_{ranker}": rank for ranker, rank in hit.ranks.items()},
    }
