"""A LlamaIndex retriever over hopgraph, for `RetrieverQueryEngine` and anything else that takes a
`BaseRetriever`.

Installed by `pip install 'hopgraph[llamaindex]'` (llama-index-core). Each hit becomes a
`NodeWithScore` over a `TextNode` with the same metadata as the LangChain adapter (the fused and
per-ranker numbers included); its score is 1/rank, monotone as LlamaIndex's cut-offs expect. The
LLM sees only its title, source and how it was found, not its ids and scores.

Nothing here downloads: building nodes needs neither NLTK nor tiktoken. llama-index-core's
response synthesizers count tokens with tiktoken and some splitters use NLTK, and it ships both
caches inside the package (`llama_index/core/_static`), read when TIKTOKEN_CACHE_DIR and NLTK_DATA
are unset; set either to a folder without the files and those components fetch them instead.
"""

from __future__ import annotations

import asyncio

from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.integrations import hit_metadata, missing_extra, open_graph
from hopgraph.query.question import DEFAULT_METHOD
from hopgraph.records.retrieval import Hit

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError:
    raise missing_extra("llamaindex") from None

SHOWN_TO_LLM = ("title", "source", "how")  # the rest (ids, scores) would only cost the model tokens


class HopGraphRetriever(BaseRetriever):
    """Retrieves chunks by a hopgraph method (default: hybrid search plus names and links).

    `graph` is a HopGraph you own, or the path (or postgresql:// URL) of an existing store, which
    the retriever opens for itself. `similarity_top_k` (LlamaIndex's name) or `top` (hopgraph's)
    sets the number of nodes; None takes the store's configured `top`. A node's score is 1/rank,
    so `SimilarityPostprocessor(similarity_cutoff=…)` keeps a prefix of the ranking (a linked
    hit is not dropped for its link weight); the stage's own number is metadata `stage_score`."""

    def __init__(self, graph: HopGraph | str, method: str = DEFAULT_METHOD, top: int | None = None,
                 similarity_top_k: int | None = None, **kwargs: object) -> None:
        if top is not None and similarity_top_k is not None and top != similarity_top_k:
            raise HopgraphError(f"top={top} and similarity_top_k={similarity_top_k} disagree: give one")
        self.top = similarity_top_k if similarity_top_k is not None else top
        if self.top is not None and self.top < 1:
            raise HopgraphError(f"similarity_top_k must be at least 1, got {self.top}")
        self.graph = open_graph(graph)
        self.method = method
        super().__init__(**kwargs)  # type: ignore[arg-type]  (callback_manager, verbose…)

    @property
    def similarity_top_k(self) -> int | None:
        """LlamaIndex's name for `top`."""
        return self.top

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self.graph.search(query_bundle.query_str, method=self.method, top=self.top).hits
        return [NodeWithScore(node=hit_node(hit), score=hit.score) for hit in hits]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        # llama-index's default runs the search on the event loop; a thread keeps the loop free
        # (the store's connection may be used from any thread).
        return await asyncio.to_thread(self._retrieve, query_bundle)


def hit_node(hit: Hit) -> TextNode:
    metadata = hit_metadata(hit)
    hidden = [key for key in metadata if key not in SHOWN_TO_LLM]
    # The chunk id makes the node id: the same chunk retrieved twice is one node to deduplicate.
    return TextNode(id_=f"hopgraph-chunk-{hit.chunk_id}", text=hit.text, metadata=metadata,
                    excluded_llm_metadata_keys=hidden, excluded_embed_metadata_keys=hidden)
