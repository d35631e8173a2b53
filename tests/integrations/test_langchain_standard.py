"""LangChain's own standard retriever suite (langchain-tests' RetrieversIntegrationTests) over the
two-hop sample store: `k` in the constructor and per call, documents from invoke and ainvoke."""

from __future__ import annotations

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from hopgraph.integrations.langchain import HopGraphRetriever


# The suite's ainvoke test is a coroutine: pytest-asyncio (strict) runs it for the class's mark, and
# the suite forbids overriding a test to mark it alone, so its sync tests' "not async" note is muted.
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.filterwarnings("ignore:The test <Function .* is marked with '@pytest.mark.asyncio'")
class TestHopGraphRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _graph(self, sample_graph, two_hop) -> None:
        self.graph, self.question = sample_graph, two_hop.question

    @property
    def retriever_constructor(self) -> type[HopGraphRetriever]:
        return HopGraphRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"graph": self.graph}

    @property
    def retriever_query_example(self) -> str:
        return self.question
