"""The rankers registry: the built-in rankers, a ranker registered from outside the package used by
a method like any other, and the names a ranker may not take."""

from __future__ import annotations

import numpy as np
import pytest

from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError, InputError
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval import rankers
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.methods import MethodSpec, method_help, parse_method, run_method
from hopgraph.retrieval.rankers import Ranking, RankRequest


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test are forgotten after it."""
    monkeypatch.setattr(rankers, "_RANKERS", dict(rankers._RANKERS))


def last_rows_first(index: SearchIndex, question: str, request: RankRequest) -> Ranking:
    """A ranker nobody would want, which is the point: its order is unlike any built-in one's."""
    request.timer.step("backwards")
    return Ranking(np.arange(len(index.table.ids), dtype=np.float64))


def test_the_built_in_rankers_are_registered_with_a_description() -> None:
    assert rankers.names()[:3] == ["vector", "bm25", "hybrid"]
    assert all(rankers.get(name).description for name in rankers.names())


def test_a_registered_ranker_is_a_method_with_its_stages(registry: None, tiny_graph: HopGraph) -> None:
    rankers.register("backwards", last_rows_first, "the last chunk first")
    assert parse_method("backwards+names+links") == MethodSpec("backwards", True, True)
    index = tiny_graph.search_index
    found = run_method(index, "anything at all", "backwards", Budget(top=3, seeds=0))
    last = len(index.table.ids) - 1
    assert [h.chunk_id for h in found.hits] == [int(index.table.ids[row]) for row in (last, last - 1, last - 2)]
    assert {h.found_by for h in found.hits} == {"backwards"}
    assert found.trace[0].stage == "backwards"


def test_help_and_errors_list_every_registered_ranker(registry: None) -> None:
    rankers.register("backwards", last_rows_first, "the last chunk first")
    assert "backwards (the last chunk first)" in method_help()
    assert all(name in method_help() for name in ("vector", "bm25", "hybrid"))
    with pytest.raises(InputError, match=r"use a ranker \(vector, bm25, hybrid, backwards\)"):
        parse_method("forwards+links")


@pytest.mark.parametrize("name", ["hybrid", "names", "links", "ppr", "Upper", "a+b", "", "9lives"])
def test_a_ranker_name_must_be_new_and_plain(registry: None, name: str) -> None:
    with pytest.raises(HopgraphError, match="cannot register ranker"):
        rankers.register(name, last_rows_first, "bad name")


def test_an_unknown_ranker_is_an_input_error_naming_the_known_ones() -> None:
    with pytest.raises(InputError, match="unknown ranker 'nope'; use one of vector, bm25, hybrid"):
        rankers.get("nope")
