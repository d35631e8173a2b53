"""What the adapters share: the error naming a missing extra, the store argument, a hit's metadata."""

from __future__ import annotations

import subprocess
import sys

import pytest
from child_env import child_env

from hopgraph.errors import HopgraphError
from hopgraph.integrations import hit_metadata, open_graph
from hopgraph.records.retrieval import Hit, Retrieval, Via

# Blocks the framework's import as a missing package does (a None in sys.modules raises ImportError).
BLOCKED = """
import sys
sys.modules[{framework!r}] = None
from hopgraph.errors import HopgraphError
try:
    import hopgraph.integrations.{adapter}
except ImportError as err:
    print(type(err).__name__, isinstance(err, HopgraphError), err)
"""


@pytest.mark.parametrize(("adapter", "framework", "extra", "package"), [
    ("langchain", "langchain_core", "langchain", "langchain-core"),
    ("llamaindex", "llama_index.core", "llamaindex", "llama-index-core"),
    ("mcp_server", "mcp", "mcp", "the mcp package"),
])
def test_an_adapter_without_its_framework_names_the_extra_to_install(adapter, framework, extra, package):
    done = subprocess.run([sys.executable, "-c", BLOCKED.format(framework=framework, adapter=adapter)],
                          env=child_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"MissingExtra True hopgraph.integrations.{extra} needs {package}")
    assert f"pip install 'hopgraph[{extra}]'" in done.stdout


def test_open_graph_takes_a_hopgraph_as_it_is(tiny_graph):
    assert open_graph(tiny_graph) is tiny_graph


def test_open_graph_refuses_anything_but_a_hopgraph_or_a_path():
    with pytest.raises(HopgraphError, match="expected a HopGraph or a store path, got int"):
        open_graph(3)  # type: ignore[arg-type]


def test_hit_metadata_is_flat_and_says_how_the_hit_was_found():
    hit = Hit(7, 2, "Adriana Trigiani", "Adriana Trigiani is an author.", 0.25, "link",
              Via(3, "Big Stone Gap (film)", "Adriana Trigiani"), source="tiny#1")
    metadata = hit_metadata(hit)
    assert metadata == {"chunk_id": 7, "doc_id": 2, "title": "Adriana Trigiani", "source": "tiny#1", "score": 0.25,
                        "stage_score": None, "found_by": "link",
                        "how": 'Big Stone Gap (film) → Adriana Trigiani via "Adriana Trigiani"',
                        "via": "Adriana Trigiani", "via_chunk_id": 3, "via_title": "Big Stone Gap (film)"}
    assert all(value is None or isinstance(value, str | int | float) for value in metadata.values())
    plain = hit_metadata(Hit(1, 1, "Gap Inc.", "Gap Inc. is a retailer.", 0.5, "bm25"))
    assert (plain["how"], plain["via"], plain["via_chunk_id"], plain["via_title"]) == ("bm25", None, None, None)


def test_hit_metadata_of_a_ranked_fused_hit_carries_its_stage_score_and_each_rankers_rank():
    fused = Hit(4, 1, "Gap Inc.", "Gap Inc. is a retailer.", 0.1639, "hybrid", ranks={"vector": 1, "bm25": 3})
    (ranked,) = Retrieval("hybrid", [fused]).hits
    metadata = hit_metadata(ranked)
    assert (metadata["score"], metadata["stage_score"]) == (1.0, 0.1639)
    assert (metadata["rank_vector"], metadata["rank_bm25"]) == (1, 3)
