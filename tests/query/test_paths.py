"""Path queries over a hand-built knowledge graph: every route, limits, types, direction, follow, as-of.

Most tests walk every relation forward (`follow="all"`); the default depends-on senses have their own."""

from __future__ import annotations

import pytest

from hopgraph.errors import InputError
from hopgraph.query.paths import find_entity, find_paths, parse_follow
from hopgraph.records.knowledge import Entity, Hop, KnowledgeGraph, Relation, Source

ENTITIES = [("A", "ORG"), ("X", "ORG"), ("Y", "ORG"), ("T", "LOCATION"), ("P", "PERSON")]


def graph_of(*edges: tuple, entities: list[tuple[str, str]] = ENTITIES) -> KnowledgeGraph:
    """Edges as (source, relation, target[, chunk ids][, valid_from, valid_until]); chunk id = doc id × 10."""
    ids = {name: i for i, (name, _) in enumerate(entities, start=1)}
    graph = KnowledgeGraph({ids[name]: Entity(ids[name], name, type_) for name, type_ in entities})
    for number, (source, relation, target, *rest) in enumerate(edges, start=1):
        chunks = rest[0] if rest else (number * 10,)
        valid = rest[1:] if len(rest) > 1 else (None, None)
        graph.relations.append(Relation(number, ids[source], relation, ids[target],
                                        sources=[Source(c, c // 10) for c in chunks],
                                        valid_from=valid[0], valid_until=valid[1]))
    graph.index()
    return graph


def routes(paths: list[list[Hop]]) -> list[str]:
    """Each path as its entity names, far end first, e.g. 'A>X>T'."""
    out = []
    for path in paths:
        names = [path[0].source, *(hop.target for hop in path)]
        out.append(">".join(names))
    return out


TWO_ROUTES = graph_of(("A", "SUPPLIES", "X"), ("X", "SUPPLIES", "T"), ("A", "SUPPLIES", "Y"), ("Y", "SUPPLIES", "T"))


def test_two_routes_through_different_intermediates_are_both_reported():
    found = routes(find_paths(TWO_ROUTES, "T", max_hops=2, follow="all"))
    assert sorted(found) == ["A>X>T", "A>Y>T", "X>T", "Y>T"]
    assert found.count("A>X>T") == 1 and found.count("A>Y>T") == 1


def test_shorter_paths_come_first():
    lengths = [len(path) for path in find_paths(TWO_ROUTES, "T", max_hops=2, follow="all")]
    assert lengths == sorted(lengths) == [1, 1, 2, 2]


def test_each_hop_is_the_stored_edge_with_the_chunk_and_document_that_state_it():
    path = next(p for p in find_paths(TWO_ROUTES, "T", follow="all") if routes([p]) == ["A>X>T"])
    assert path == [Hop("A", "SUPPLIES", "X", 10, 1), Hop("X", "SUPPLIES", "T", 20, 2)]
    assert path[0].as_dict() == {"source": "A", "relation": "SUPPLIES", "target": "X", "chunk_id": 10, "doc_id": 1}


def test_a_hop_cites_the_lowest_chunk_of_a_relation_stated_twice():
    graph = graph_of(("X", "SUPPLIES", "T", (70, 30)))
    assert find_paths(graph, "T", follow="all")[0][0].chunk_id == 30


def test_max_hops_bounds_the_path_length():
    assert sorted(routes(find_paths(TWO_ROUTES, "T", max_hops=1, follow="all"))) == ["X>T", "Y>T"]


def test_max_paths_bounds_how_many_are_reported():
    found = find_paths(TWO_ROUTES, "T", max_hops=2, max_paths=3, follow="all")
    assert len(found) == 3
    assert sorted(routes(found)[:2]) == ["X>T", "Y>T"]


def test_end_type_keeps_paths_whose_far_end_has_the_type_but_walks_through_others():
    graph = graph_of(("P", "PART_OF", "A"), ("A", "SUPPLIES", "X"), ("X", "SUPPLIES", "T"))
    assert routes(find_paths(graph, "T", max_hops=3, end_type="person", follow="all")) == ["P>A>X>T"]
    assert routes(find_paths(graph, "T", max_hops=3, end_type="ORG", follow="all")) == ["X>T", "A>X>T"]


def test_a_node_does_not_repeat_within_a_path():
    graph = graph_of(("A", "SUPPLIES", "X"), ("X", "SUPPLIES", "A"), ("X", "SUPPLIES", "T"))
    assert sorted(routes(find_paths(graph, "T", max_hops=4, follow="all"))) == ["A>X>T", "X>T"]


def test_direction_out_walks_away_from_the_entity():
    found = find_paths(TWO_ROUTES, "A", direction="out", max_hops=2, follow="all")
    assert sorted(routes(found)) == ["A>X", "A>X>T", "A>Y", "A>Y>T"]
    assert find_paths(TWO_ROUTES, "A", direction="in", follow="all") == []


def test_follow_limits_the_relations_walked():
    graph = graph_of(("A", "SUPPLIES", "X"), ("Y", "OWNS", "X"), ("X", "LOCATED_IN", "T"))
    found = find_paths(graph, "T", max_hops=2, follow={"LOCATED_IN": "forward", "SUPPLIES": "forward"})
    assert sorted(routes(found)) == ["A>X>T", "X>T"]


def test_follow_supplies_reverse_walks_from_a_buyer_back_through_its_suppliers():
    # X is located in T and supplies Y, which supplies A: Y and A depend on T through their suppliers.
    graph = graph_of(("X", "LOCATED_IN", "T"), ("X", "SUPPLIES", "Y"), ("Y", "SUPPLIES", "A"))
    follow = {"LOCATED_IN": "forward", "SUPPLIES": "reverse"}
    found = find_paths(graph, "T", max_hops=3, follow=follow)
    assert [[(h.source, h.relation, h.target) for h in path] for path in found] == [
        [("X", "LOCATED_IN", "T")],
        [("X", "SUPPLIES", "Y"), ("X", "LOCATED_IN", "T")],
        [("Y", "SUPPLIES", "A"), ("X", "SUPPLIES", "Y"), ("X", "LOCATED_IN", "T")],
    ]
    # Followed forward instead, SUPPLIES leads nowhere new: nobody supplies X.
    assert routes(find_paths(graph, "T", max_hops=3, follow={"LOCATED_IN": "forward", "SUPPLIES": "forward"})) == [
        "X>T"]


def test_as_of_drops_relations_that_ended_before_or_began_after_the_date():
    graph = graph_of(("X", "SUPPLIES", "T", (10,), "2016-01-01", "2022-12-31"),
                     ("Y", "SUPPLIES", "T", (20,), "2025-01-01", None),
                     ("A", "SUPPLIES", "T", (30,), "2020", None))
    assert sorted(routes(find_paths(graph, "T", as_of="2024-06-30", follow="all"))) == ["A>T"]
    assert sorted(routes(find_paths(graph, "T", as_of="2021-06-30", follow="all"))) == ["A>T", "X>T"]
    # No date is today: X's supply ended in 2022 (it used to count as current), Y's began in 2025.
    assert sorted(routes(find_paths(graph, "T", follow="all"))) == ["A>T", "Y>T"]


def test_as_of_compares_dates_as_spans_and_refuses_what_is_no_date():
    graph = graph_of(("X", "SUPPLIES", "T", (10,), "2016", "2022"), ("Y", "SUPPLIES", "T", (20,), "2023-02", None))
    assert routes(find_paths(graph, "T", as_of="2022-07-01", follow="all")) == ["X>T"]  # until 2022: all of it
    assert sorted(routes(find_paths(graph, "T", as_of="2023", follow="all"))) == ["Y>T"]
    for bad in ("garbage", "2025-02-30", "0000-01-01"):
        with pytest.raises(InputError, match="--as-of: '"):
            find_paths(graph, "T", as_of=bad)


def test_as_of_applies_to_every_hop_of_a_path():
    graph = graph_of(("A", "SUPPLIES", "X", (10,), None, "2020-12-31"), ("X", "SUPPLIES", "T"))
    assert routes(find_paths(graph, "T", as_of="2024-01-01", follow="all")) == ["X>T"]


@pytest.mark.parametrize(("kwargs", "problem"), [
    ({"direction": "up"}, "direction must be"),
    ({"max_hops": 0}, "at least 1"),
    ({"max_paths": 0}, "at least 1"),
])
def test_bad_query_options_are_input_errors(kwargs, problem):
    with pytest.raises(InputError, match=problem):
        find_paths(TWO_ROUTES, "T", **kwargs, follow="all")


# --- finding the entity ------------------------------------------------------------------------------

NAMED = KnowledgeGraph({1: Entity(1, "Anvaya Foundry", "ORG", aliases=["AF Castings"]),
                        2: Entity(2, "Corvane Brake Systems", "ORG"),
                        3: Entity(3, "Anvayam Foundries", "ORG")})


def test_find_entity_by_name_or_alias_ignoring_case():
    assert find_entity(NAMED, "anvaya foundry").id == 1
    assert find_entity(NAMED, "AF CASTINGS").id == 1


def test_find_entity_by_normalised_name():
    assert find_entity(NAMED, "Anvaya Foundry Pvt. Ltd.").id == 1
    assert find_entity(NAMED, "The Corvane Brake Systems Limited").id == 2


def test_find_entity_by_a_longer_or_shorter_form_of_exactly_one_name():
    assert find_entity(NAMED, "Corvane Brake Systems India").id == 2  # a longer form
    assert find_entity(NAMED, "Corvane Brake").id == 2  # a shorter one
    assert find_entity(NAMED, "Anvaya").id == 1  # word for word: "Anvayam Foundries" does not fit
    with pytest.raises(InputError):  # "Anvaya" begins both names: ambiguous, refused
        find_entity(KnowledgeGraph({1: Entity(1, "Anvaya Foundry", "ORG"), 2: Entity(2, "Anvaya Steel", "ORG")}),
                    "Anvaya")


def test_an_unknown_entity_is_an_input_error_with_suggestions():
    with pytest.raises(InputError, match=r"no entity called 'Anvaya Steel'.*did you mean ") as error:
        find_entity(NAMED, "Anvaya Steel")
    suggested = str(error.value).split("did you mean ")[1]
    assert "Anvaya Foundry" in suggested and "Corvane" not in suggested


def test_an_unknown_entity_with_nothing_alike_has_no_suggestion():
    with pytest.raises(InputError) as error:
        find_entity(NAMED, "Zephyra Motors")
    assert "did you mean" not in str(error.value)


# --- --follow ----------------------------------------------------------------------------------------


def test_parse_follow_reads_relations_and_their_sense():
    assert parse_follow("supplies:reverse, USES ,LOCATED_IN:Forward") == {
        "SUPPLIES": "reverse", "USES": "forward", "LOCATED_IN": "forward"}
    assert parse_follow(None) is None and parse_follow("") is None


@pytest.mark.parametrize("spec", ["SUPPLIES:sideways", ":reverse", "SUPPLIES,,USES"])
def test_parse_follow_rejects_bad_items(spec):
    with pytest.raises(InputError, match="--follow item"):
        parse_follow(spec)


# --- the default: who depends on what ---------------------------------------------------------------


DEPENDENCE = graph_of(("X", "SUPPLIES", "A"), ("X", "LOCATED_IN", "T"), ("Y", "RELATED_TO", "T"),
                      ("P", "PART_OF", "X"), ("A", "CO_OCCURS", "T"))


def test_by_default_a_buyer_depends_on_its_supplier_and_a_firm_on_its_town():
    # X's plant is in T (X depends on T); X supplies A (A depends on X): both depend on T.
    found = find_paths(DEPENDENCE, "T", max_hops=3)
    assert [[(h.source, h.relation, h.target) for h in path] for path in found] == [
        [("X", "LOCATED_IN", "T")],
        [("X", "SUPPLIES", "A"), ("X", "LOCATED_IN", "T")],
    ]
    assert parse_follow("depends-on") == "depends-on"
    assert find_paths(DEPENDENCE, "T", max_hops=3, follow="depends-on") == found


def test_related_to_and_co_occurrence_are_walked_only_when_asked_for():
    walked = {h.relation for p in find_paths(DEPENDENCE, "T", follow="all") for h in p}
    assert walked == {"LOCATED_IN", "PART_OF"}
    asked = find_paths(DEPENDENCE, "T", max_hops=1, follow={"RELATED_TO": "forward", "CO_OCCURS": "forward"})
    assert sorted(h.source for p in asked for h in p) == ["A", "Y"]


def test_the_all_preset_walks_every_stated_relation_forward():
    assert parse_follow("all") == "all"
    assert sorted(routes(find_paths(DEPENDENCE, "T", max_hops=2, follow="all"))) == ["P>X>T", "X>T"]
