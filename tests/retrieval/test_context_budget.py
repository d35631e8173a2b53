"""Budget.context_tokens: the hits' texts stay within a token limit, and the trace says what was used."""

from __future__ import annotations

import pytest

from hopgraph.errors import InputError
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval.methods import run_method
from hopgraph.text.tokens import count_tokens

QUESTION = "The director of Big Stone Gap is based in what New York city?"


def fill_step(retrieval):
    return next(step for step in retrieval.trace if step.stage == "fill")


@pytest.mark.parametrize("method", ["hybrid", "hybrid+names+links", "ppr", "hybrid+names+links+ppr"])
def test_every_method_reports_places_and_with_a_limit_context_tokens(tiny_graph, method):
    plain = run_method(tiny_graph.search_index, QUESTION, method, Budget(top=3))
    assert fill_step(plain).detail == "used 3 of 3 places"
    limited = run_method(tiny_graph.search_index, QUESTION, method, Budget(top=3, context_tokens=10_000))
    tokens = sum(count_tokens(hit.text) for hit in limited.hits)
    assert fill_step(limited).detail == f"used 3 of 3 places, {tokens} context tokens of 10000"


def test_hits_past_the_token_limit_are_dropped_in_order(tiny_graph):
    index = tiny_graph.search_index
    full = run_method(index, QUESTION, "hybrid+names+links", Budget(top=4))
    sizes = [count_tokens(hit.text) for hit in full.hits]
    limit = sizes[0] + sizes[1]  # room for exactly the first two
    cut = run_method(index, QUESTION, "hybrid+names+links", Budget(top=4, context_tokens=limit))
    assert [h.chunk_id for h in cut.hits] == [h.chunk_id for h in full.hits[:2]]
    assert fill_step(cut).detail == f"used 2 of 4 places, {limit} context tokens of {limit}"


def test_the_first_hit_is_kept_even_when_it_alone_is_over_the_limit(tiny_graph):
    retrieval = run_method(tiny_graph.search_index, QUESTION, "hybrid", Budget(top=3, context_tokens=1))
    assert len(retrieval.hits) == 1


def test_a_context_limit_below_one_token_is_refused():
    with pytest.raises(InputError, match="context_tokens"):
        Budget(context_tokens=0)
