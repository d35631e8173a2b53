"""The LlamaIndex retriever inside a real RetrieverQueryEngine (llama-index-core, MockLLM), offline."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest
from child_env import child_env
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode
from make_documents import OWN_DOCS
from two_hop import BRIDGE_TITLE, LINKED_TITLE

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.integrations.llamaindex import HopGraphRetriever

WALK_THROUGH_QUESTION = "Which town do the disc castings of Tessaro Brakes come from?"  # README

# Installs the same guard as the no_network fixture, before anything is imported.
GUARDED_IMPORT = """
import socket, sys
attempts = []
def guarded(sock, address):
    attempts.append(address)
    raise OSError("network blocked")
socket.socket.connect = guarded
import hopgraph.integrations.llamaindex
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.llms import MockLLM
from llama_index.core.postprocessor import SimilarityPostprocessor
print("attempts", attempts)
"""


@pytest.mark.slow
def test_a_query_engine_answers_from_the_paragraph_only_a_link_finds(sample_graph, two_hop, no_network):
    engine = RetrieverQueryEngine.from_args(HopGraphRetriever(sample_graph), llm=MockLLM())
    response = engine.query(two_hop.question)
    linked = next(n for n in response.source_nodes if n.node.metadata["title"] == LINKED_TITLE)
    assert linked.node.metadata["found_by"] == "link"
    assert (linked.node.metadata["via"], linked.node.metadata["via_title"]) == (LINKED_TITLE, BRIDGE_TITLE)
    assert two_hop.answer in linked.node.get_content()
    assert two_hop.answer in str(response)  # MockLLM echoes its prompt: the context held the answer
    assert no_network == []  # token counting used llama-index's bundled tiktoken cache


@pytest.mark.slow
def test_without_links_the_engine_never_sees_the_answer(sample_graph, two_hop, no_network):
    engine = RetrieverQueryEngine.from_args(HopGraphRetriever(sample_graph, method="hybrid"), llm=MockLLM())
    response = engine.query(two_hop.question)
    assert all(n.node.metadata["title"] != LINKED_TITLE for n in response.source_nodes)
    assert two_hop.answer not in str(response)


@pytest.mark.slow
def test_nodes_carry_the_hit_and_show_the_llm_only_title_source_and_how(sample_graph, two_hop):
    nodes = HopGraphRetriever(sample_graph, top=4).retrieve(two_hop.question)
    hits = sample_graph.search(two_hop.question, top=4).hits
    assert [(n.node.get_content(), n.score) for n in nodes] == [(h.text, h.score) for h in hits]
    assert [n.node.node_id for n in nodes] == [f"hopgraph-chunk-{h.chunk_id}" for h in hits]
    shown = nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert f"title: {hits[0].title}" in shown and f"how: {hits[0].describe_path()}" in shown
    assert "chunk_id" not in shown and "score" not in shown


@pytest.mark.slow
def test_aquery_runs_the_search_off_the_event_loop_with_the_same_nodes(sample_graph, two_hop, no_network):
    retriever = HopGraphRetriever(sample_graph, top=3)
    threads: list[str] = []
    search = sample_graph.search

    def recording_search(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return search(*args, **kwargs)

    sample_graph.search = recording_search  # type: ignore[method-assign]
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = asyncio.run(engine.aquery(two_hop.question))
    assert [n.node.node_id for n in response.source_nodes] == [n.node.node_id
                                                               for n in retriever.retrieve(two_hop.question)]
    assert threads[0] != threading.main_thread().name and threads[1] == threading.main_thread().name


def test_importing_the_adapter_and_the_query_engine_opens_no_connection():
    env = {k: v for k, v in child_env().items() if k not in ("TIKTOKEN_CACHE_DIR", "NLTK_DATA")}
    done = subprocess.run([sys.executable, "-c", GUARDED_IMPORT], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "attempts []" in done.stdout


def test_similarity_top_k_sets_the_number_of_nodes_and_top_is_its_alias(tiny_graph):
    question = "Who directed Big Stone Gap?"
    assert len(HopGraphRetriever(tiny_graph, similarity_top_k=2).retrieve(question)) == 2
    assert len(HopGraphRetriever(tiny_graph, top=1).retrieve(question)) == 1
    assert HopGraphRetriever(tiny_graph, top=3).similarity_top_k == 3
    with pytest.raises(HopgraphError, match="top=2 and similarity_top_k=3 disagree"):
        HopGraphRetriever(tiny_graph, top=2, similarity_top_k=3)
    with pytest.raises(HopgraphError, match="similarity_top_k must be at least 1, got 0"):
        HopGraphRetriever(tiny_graph, similarity_top_k=0)


def test_node_scores_are_monotone_in_rank_with_the_stage_numbers_in_metadata(tiny_graph):
    nodes = HopGraphRetriever(tiny_graph, top=4).retrieve("Who directed Big Stone Gap?")
    assert [n.score for n in nodes] == [1.0, 0.5, 1 / 3, 0.25]
    assert all(isinstance(n.node.metadata["stage_score"], float) for n in nodes)
    fused = [n for n in nodes if n.node.metadata["found_by"] == "hybrid"]
    assert fused and all("rank_vector" in n.node.metadata and "rank_bm25" in n.node.metadata for n in fused)


@pytest.mark.slow
def test_a_similarity_cutoff_keeps_the_linked_passage_of_the_readme_walk_through(tmp_path):
    # The walk-through's answer (Dharwad) is a link hit: its link weight (0.05) once fell under a
    # cut-off that its rank (4th of 5) passes.
    store = tmp_path / "own.db"
    with HopGraph(str(store), Settings()) as hg:
        hg.index([str(OWN_DOCS)])
    with HopGraph(str(store), Settings(), create=False) as hg:
        nodes = HopGraphRetriever(hg, similarity_top_k=5).retrieve(WALK_THROUGH_QUESTION)
        kept = SimilarityPostprocessor(similarity_cutoff=0.1).postprocess_nodes(nodes)
    linked = [n for n in kept if "Dharwad" in n.node.get_content()]
    assert linked and linked[0].node.metadata["found_by"] == "link"
    assert linked[0].node.metadata["via"] == "Ravik Foundry"
    assert linked[0].node.metadata["stage_score"] < 0.1 < linked[0].score
    assert [n.node.node_id for n in kept] == [n.node.node_id for n in nodes]
