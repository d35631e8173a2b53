"""The extraction cost estimate: calls per chunk and gleaning round, tokens, and money."""

from __future__ import annotations

import pytest

from hopgraph.config import Settings
from hopgraph.kg.estimate import DEFAULT_OUT_TOKENS, Estimate, estimate
from hopgraph.prompts import extraction
from hopgraph.records.documents import Document
from hopgraph.text.tokens import count_tokens

SHORT = Document("Short", "Anvaya Foundry supplies castings to Corvane Brake Systems.", "t")
LONG = Document("Long", " ".join(f"Sentence {i} about Anvaya Foundry and its plant in Hosur." for i in range(60)), "t")
SMALL_WINDOWS = Settings(chunk_tokens=100, chunk_overlap=20)


def test_calls_are_chunks_times_one_plus_gleanings():
    for gleanings in (0, 1, 3):
        result = estimate([SHORT, LONG], SMALL_WINDOWS, gleanings)
        assert result.documents == 2
        assert result.chunks > 2  # the long document spans several windows
        assert result.calls == result.chunks * (1 + gleanings)


def test_output_tokens_are_the_assumed_tokens_per_call():
    result = estimate([SHORT], Settings(), 2, out_tokens_per_call=200)
    assert (result.out_tokens_per_call, result.tokens_out) == (200, 3 * 200)
    assert estimate([SHORT], Settings(), 0).out_tokens_per_call == DEFAULT_OUT_TOKENS


def test_input_tokens_of_one_call_are_the_prompt_plus_the_chunk():
    result = estimate([SHORT], Settings(), 0)
    settings = Settings()
    prompt = extraction.messages(SHORT.text, tuple(settings.entity_types.split(",")),
                                 tuple(settings.relation_types.split(",")))
    whole = sum(count_tokens(m["content"]) for m in prompt)
    assert abs(result.tokens_in - whole) <= 2  # counted separately, the chunk and the prompt may split a token


def test_input_tokens_grow_with_every_gleaning_round():
    rounds = [estimate([SHORT, LONG], SMALL_WINDOWS, g).tokens_in for g in range(4)]
    assert rounds == sorted(set(rounds))
    first, second = rounds[0], rounds[1]
    # A gleaning round resends the first exchange and the previous reply: more than the first round alone.
    assert second - first > first


def test_a_larger_vocabulary_costs_more_input_tokens():
    small = Settings(entity_types="ORG", relation_types="SUPPLIES")
    assert estimate([SHORT], small, 0).tokens_in < estimate([SHORT], Settings(), 0).tokens_in


def test_no_documents_cost_nothing():
    result = estimate([], Settings(), 1)
    assert (result.chunks, result.calls, result.tokens_in, result.tokens_out) == (0, 0, 0, 0)


@pytest.mark.parametrize(("tokens_in", "tokens_out", "price_in", "price_out", "money"), [
    (1_000_000, 0, 0.15, 0.60, 0.15),
    (0, 1_000_000, 0.15, 0.60, 0.60),
    (2_500_000, 500_000, 0.10, 0.40, 0.45),
    (123, 456, 0.0, 0.0, 0.0),
])
def test_cost_is_tokens_times_price_per_million(tokens_in, tokens_out, price_in, price_out, money):
    result = Estimate(documents=1, chunks=1, calls=1, tokens_in=tokens_in, tokens_out=tokens_out,
                      out_tokens_per_call=350)
    assert result.cost(price_in, price_out) == pytest.approx(money)
