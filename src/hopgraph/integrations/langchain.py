"""A LangChain retriever over hopgraph: `HopGraphRetriever(graph="hopgraph.db", k=5) | format | llm`.

Installed by `pip install 'hopgraph[langchain]'` (langchain-core). Each hit becomes a `Document`
whose metadata says how it was found (hopgraph.integrations.hit_metadata), so a chain can show
that a paragraph came in over a link and via which name. LangChain's conventions hold, as its own
standard suite checks (langchain-tests, tests/integrations/test_langchain_standard.py): `k` sets
the number of documents (`top`, hopgraph's name, is an alias), per call too (`invoke(q, k=1)`),
and an unknown field or per-call argument is an error rather than silently ignored. The async
path (`ainvoke`) runs the search in langchain-core's thread pool, which the store's connection
allows.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, ConfigDict, Field, field_validator

from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.integrations import hit_metadata, missing_extra, open_graph
from hopgraph.query.question import DEFAULT_METHOD

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables.config import run_in_executor
except ImportError:
    raise missing_extra("langchain") from None

PER_CALL = ("k", "top")  # what invoke(q, …) may set for one call


class HopGraphRetriever(BaseRetriever):
    """Retrieves chunks by a hopgraph method (default: hybrid search plus names and links).

    `graph` is a HopGraph you own, or the path (or postgresql:// URL) of an existing store, which
    the retriever opens for itself. `k` (alias `top`) None takes the store's configured `top`."""

    # forbid: `HopGraphRetriever(graph=…, top_k=3)` is a mistake to report, not a field to drop
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", populate_by_name=True)

    graph: HopGraph
    method: str = DEFAULT_METHOD
    k: int | None = Field(default=None, ge=1, validation_alias=AliasChoices("k", "top"))

    @field_validator("graph", mode="before")
    @classmethod
    def _open(cls, value: Any) -> HopGraph:
        return open_graph(value)

    @property
    def top(self) -> int | None:
        """hopgraph's name for `k`."""
        return self.k

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        hits = self.graph.search(query, method=self.method, top=self._per_call_k(kwargs)).hits
        return [Document(page_content=hit.text, metadata=hit_metadata(hit)) for hit in hits]

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **kwargs: Any) -> list[Document]:
        # langchain-core's own default, but passing the per-call arguments on
        return await run_in_executor(None, self._get_relevant_documents, query,
                                     run_manager=run_manager.get_sync(), **kwargs)

    def _per_call_k(self, kwargs: dict[str, Any]) -> int | None:
        unknown = sorted(set(kwargs) - set(PER_CALL))
        if unknown:
            raise HopgraphError(f"unknown argument(s) {', '.join(unknown)} for HopGraphRetriever.invoke: "
                                f"it takes {' or '.join(PER_CALL)}")
        if "k" in kwargs and "top" in kwargs and kwargs["k"] != kwargs["top"]:
            raise HopgraphError(f"k={kwargs['k']} and top={kwargs['top']} disagree: give one")
        k = kwargs.get("k", kwargs.get("top", self.k))
        if k is not None and (not isinstance(k, int) or k < 1):
            raise HopgraphError(f"k must be a whole number of at least 1, got {k!r}")
        return k
