"""End to end against a real LLM: the ~1.1 GB Qwen2.5-Coder-1.5B GGUF served by xllamacpp on 127.0.0.1.

Skipped (green) without xllamacpp or without the cached model; HOPGRAPH_FETCH_MODEL=1 (CI) fetches the model first.
"""

from __future__ import annotations

import importlib.util
import json
import os

import httpx
import pytest
from local_model import XLLAMACPP_REQUIREMENT, LocalServer, cached_model, ensure_model

PARAGRAPH = (
    "Foundry F Pvt Ltd casts brake drums at its only plant in Hosur, Tamil Nadu, and supplies them to Brake Maker A."
)
# maxItems and max_tokens bound the reply: a small model under a grammar can otherwise loop on array items.
SCHEMA = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "maxItems": 10,
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "type": {"type": "string"}},
                "required": ["name", "type"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["entities"],
    "additionalProperties": False,
}


def _model_or_skip() -> None:
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip(f"xllamacpp is not installed (pip install {XLLAMACPP_REQUIREMENT})")
    if cached_model() is None:
        if os.environ.get("HOPGRAPH_FETCH_MODEL") != "1":
            pytest.skip("no cached local model: `python tests/support/local_model.py fetch`, or HOPGRAPH_FETCH_MODEL=1")
        ensure_model()


@pytest.mark.slow
@pytest.mark.local_llm
def test_local_server_extracts_entities_as_schema_json() -> None:
    _model_or_skip()
    with LocalServer() as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        reply = httpx.post(
            server.base_url + "/chat/completions",
            timeout=120.0,  # ~5-10 s on an idle 2-core machine; a busy one (threads contend) can be 10x slower
            json={
                "model": server.model_name,
                "temperature": 0,
                "max_tokens": 300,
                "response_format": {"type": "json_schema", "json_schema": {"name": "entities", "schema": SCHEMA}},
                "messages": [
                    {"role": "system", "content": "Extract the organisations and places named in the text as JSON."},
                    {"role": "user", "content": PARAGRAPH},
                ],
            },
        )
    assert reply.status_code == 200, reply.text
    choice = reply.json()["choices"][0]
    assert choice["finish_reason"] == "stop", f"reply cut off at max_tokens: {choice['message']['content']!r}"
    data = json.loads(choice["message"]["content"])
    assert set(data) == {"entities"}
    assert isinstance(data["entities"], list) and len(data["entities"]) <= 10
    for entity in data["entities"]:
        assert set(entity) == {"name", "type"}
        assert isinstance(entity["name"], str) and isinstance(entity["type"], str)
    assert "Hosur" in {entity["name"].strip() for entity in data["entities"]}, data


@pytest.mark.slow
@pytest.mark.local_llm
def test_extraction_through_hopgraph_with_the_real_model(tmp_path) -> None:
    """The whole path a user takes: index → `extract` (prompt, JSON schema, validation, vocabulary,
    facts per chunk) → resolution → graph, against the real model."""
    from testkit import BagOfWordsEmbedder

    from hopgraph.config import Settings
    from hopgraph.engine import HopGraph
    from hopgraph.llm import LLMClient
    from hopgraph.records.documents import Document

    _model_or_skip()
    with LocalServer() as server, HopGraph(str(tmp_path / "e2e.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents([Document("Foundry F plant profile", PARAGRAPH, "e2e")])
        client = LLMClient(server.base_url, server.model_name, timeout=300.0, max_concurrency=1,
                           first_byte=300.0)
        report = hg.extract(client)
        graph = hg.knowledge_graph
        chunk_id = int(hg.search_index.table.ids[0])
        assert (report.extracted, report.failed) == (1, [])
        assert graph.find("Hosur") is not None and graph.find("Hosur").type == "LOCATION"
        assert graph.relations, "the model stated no relation about the paragraph"
        assert all(source.chunk_id == chunk_id for r in graph.relations for source in r.sources)
        assert report.usage["extract"].calls == 1 and report.usage["extract"].tokens_out > 0
