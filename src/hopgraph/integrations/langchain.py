"""A LangChain retriever over hopgraph: `HopGraphRetriever(graph="hopgraph.db") | format | llm`.

Installed by `pip install 'hopgraph[langchain]'` (langchain-core). Each hit becomes a `Document`
whose metadata says how it was found (hopgraph.integrations.hit_metadata), so a chain can show
that a paragraph came in over a link and via which name. The async path (`ainvoke`) is
langchain-core's own: the search runs in its thread pool, which the store's connection allows.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, field_validator

from hopgraph.engine import HopGraph
from hopgraph.integrations import hit_metadata, missing_extra, open_graph
from hopgraph.query.question import DEFAULT_METHOD

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError:
    raise missing_extra("langchain") from None


class HopGraphRetriever(BaseRetriever):
    """Retrieves chunks by a hopgraph method (default: hybrid search plus names and links).

    `graph` is a HopGraph you own, or the path (or postgresql:// URL) of an existing store, which
    the retriever opens for itself. `top` None takes the store's configured `top`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    graph: HopGraph
    method: str = DEFAULT_METHOD
    top: int | None = None

    @field_validator("graph", mode="before")
    @classmethod
    def _open(cls, value: Any) -> HopGraph:
        return open_graph(value)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self.graph.search(query, method=self.method, top=self.top).hits
        return [Document(page_content=hit.text, metadata=hit_metadata(hit)) for hit in hits]
