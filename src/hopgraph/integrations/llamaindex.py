"""A LlamaIndex retriever over hopgraph, for `RetrieverQueryEngine` and anything else that takes a
`BaseRetriever`.

Installed by `pip install 'hopgraph[llamaindex]'` (llama-index-core). Each hit becomes a
`NodeWithScore` over a `TextNode` with the same metadata as the LangChain adapter; the LLM sees
only its title, source and how it was found, not its ids and scores.

Nothing here downloads: building nodes needs neither NLTK nor tiktoken. llama-index-core's
response synthesizers count tokens with tiktoken and some splitters use NLTK, and it ships both
caches inside the package (`llama_index/core/_static`), read when TIKTOKEN_CACHE_DIR and NLTK_DATA
are unset; set either to a folder without the files and those components fetch them instead.
"""

from __future__ import annotations

import asyncio

from hopgraph.engine import HopGraph
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
    the retriever opens for itself. `top` None takes the store's configured `top`."""

    def __init__(self, graph: HopGraph | str, method: str = DEFAULT_METHOD, top: int | None = None,
                 **kwargs: object) -> None:
        self.graph = open_graph(graph)
        self.method = method
        self.top = top
        super().__init__(**kwargs)  # type: ignore[arg-type]  (callback_manager, verbose…)

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
