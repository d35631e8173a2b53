"""Chain files: the arrows they may use, and a hop checked against a hand-built graph."""

from __future__ import annotations

import pytest

from hopgraph.errors import InputError
from hopgraph.kg.supersession import supersede
from hopgraph.query.chains import Hop, check_chain, parse_chains

from .test_paths import graph_of


def test_arrows_plain_named_and_reverse() -> None:
    chains = parse_chains("# comment\nA -> B->C\n\nX -[supplies:reverse]-> Y -[OWNS]-> Z  # trailing note\n")
    assert [c.line for c in chains] == [2, 4]
    assert chains[0].hops == [Hop("A", "B"), Hop("B", "C")]
    assert chains[1].hops == [Hop("X", "Y", "SUPPLIES", "reverse"), Hop("Y", "Z", "OWNS", "forward")]
    assert str(chains[1].hops[0]) == "X -[SUPPLIES:reverse]-> Y" and str(chains[0].hops[0]) == "A -> B"


@pytest.mark.parametrize("text", ["A", "A ->", "-> B", "A -[SUPPLIES-> B", "", "# only a comment"])
def test_what_is_no_chain_is_an_error_naming_the_line(text: str) -> None:
    with pytest.raises(InputError, match=r"chains\.txt (line 1|holds no chain)"):
        parse_chains(text, "chains.txt")


def no_citations(chunks: list[int]) -> dict[int, str]:
    return {c: f"doc{c}" for c in chunks}


def test_a_named_relation_must_point_the_way_the_arrow_says() -> None:
    graph = graph_of(("X", "SUPPLIES", "Y"))
    assert check_chain(graph, parse_chains("Y -[SUPPLIES:reverse]-> X")[0], None, no_citations).holds
    wrong_way = check_chain(graph, parse_chains("Y -[SUPPLIES]-> X")[0], None, no_citations)
    assert wrong_way.broken_at == 1 and "no relation Y -[SUPPLIES]-> X" in wrong_way.reason
    assert check_chain(graph, parse_chains("Y -> X")[0], None, no_citations).holds  # any relation, either way


def test_a_superseded_hop_breaks_now_holds_before_and_names_where_the_news_is() -> None:
    graph = graph_of(("X", "LOCATED_IN", "T", (10,), "2019", None), ("X", "LOCATED_IN", "P", (20,), "2025", None),
                     entities=[("X", "ORG"), ("T", "LOCATION"), ("P", "LOCATION")])
    graph.relations = supersede(graph.relations, {"LOCATED_IN"})
    chain = parse_chains("X -> T")[0]
    now = check_chain(graph, chain, None, no_citations)
    assert (now.broken_at, now.since) == (1, ["doc20"])
    assert now.reason == "X LOCATED_IN T does not hold now: superseded by X LOCATED_IN P from 2025"
    assert check_chain(graph, chain, "2024-06-30", no_citations).holds


@pytest.mark.parametrize("bad", ["garbage", "2025-02-30", "0000-01-01"])
def test_a_date_that_is_no_date_is_an_input_error_not_a_chain_that_holds(bad: str) -> None:
    graph = graph_of(("X", "SUPPLIES", "Y", (10,), None, "2020"))  # ended: no date would make it hold
    with pytest.raises(InputError, match=f"--as-of: '{bad}'"):
        check_chain(graph, parse_chains("X -> Y")[0], bad, no_citations)


def test_a_hop_that_ended_or_has_not_begun_says_which() -> None:
    graph = graph_of(("X", "OWNS", "Y", (10,), "2009-01-01", "2024-07-01"), ("Y", "OWNS", "A", (20,), "2999", None))
    ended = check_chain(graph, parse_chains("X -[OWNS]-> Y")[0], None, no_citations)  # today, by default
    assert ended.reason == "X OWNS Y does not hold now (ended 2024-07-01)"
    assert check_chain(graph, parse_chains("X -[OWNS]-> Y")[0], "2024-07-01", no_citations).holds
    later = check_chain(graph, parse_chains("Y -[OWNS]-> A")[0], "2025", no_citations)
    assert later.reason == "Y OWNS A does not hold on 2025 (from 2999)"
