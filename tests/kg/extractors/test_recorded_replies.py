"""Replaying what a real local model answered (examples/suppliers/recorded_replies.json, recorded by
bench/record_supplier_replies.py): extraction runs offline, byte-for-byte as it did against the model."""

from __future__ import annotations

import json

import pytest
from testkit import SUPPLIERS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.llm import LLMClient, ReplayLLMCache

REPLIES = SUPPLIERS / "recorded_replies.json"


@pytest.mark.skipif(not REPLIES.exists(), reason="no recorded replies in examples/suppliers")
def test_recorded_real_model_replies_replay_into_a_graph_offline(tmp_path):
    model = json.loads(REPLIES.read_text(encoding="utf-8"))[0]["model"]
    # Port 9 (discard) on loopback: a cache miss would be an error, never a request.
    client = LLMClient("http://127.0.0.1:9/v1", model, cache=ReplayLLMCache(REPLIES, strict=True))
    # Recorded over 600-token windows: the extraction prompts must be byte-identical to be found.
    with HopGraph(str(tmp_path / "replay.db"), Settings(chunking="windows"), embedder=BagOfWordsEmbedder()) as hg:
        hg.index([SUPPLIERS / "docs"], SUPPLIERS / "aliases.csv")
        report = hg.extract(client)
        assert report.failed == [] and report.extracted == report.chunks == 36  # every chunk was recorded
        assert report.usage["extract"].requests == 0  # everything came from the recording
        graph = hg.knowledge_graph
        assert graph.relations and graph.find("Hosur") is not None
        chunk_ids = {int(c) for c in hg.search_index.table.ids}
        assert all(s.chunk_id in chunk_ids for r in graph.relations for s in r.sources)
