"""The stages behind a retrieval: recomputed rankings agree with what the search itself ranked,
and names, links and the walk are reported as the search placed them."""

from __future__ import annotations

import pytest

from hopgraph.records.retrieval import Budget
from hopgraph.retrieval.inspection import SHOWN, inspect_retrieval

QUESTION = "The director of Big Stone Gap is based in what New York city?"


def inspected(hg, method: str, top: int = 5):
    retrieval = hg.search(QUESTION, method=method, top=top)
    budget = Budget(top=top, seeds=hg.settings.seeds)
    return retrieval, inspect_retrieval(hg.search_index, QUESTION, retrieval, budget, hg.settings.rrf_k,
                                        hg.route(QUESTION), method == "auto")


@pytest.mark.parametrize("method", ["hybrid", "hybrid+names+links", "ppr", "auto"])
def test_the_fusion_shown_ranks_each_hit_as_the_search_did(tiny_graph, method):
    retrieval, inspection = inspected(tiny_graph, method)
    fused = {row.chunk: row for row in inspection.fusion}
    ranked_hits = [hit for hit in retrieval.hits if hit.ranks]
    assert ranked_hits, "hybrid rankers ran, so some hit carries its ranks"
    for hit in ranked_hits:
        assert fused[hit.chunk_id].ranks == hit.ranks
        assert fused[hit.chunk_id].placed == retrieval.hits.index(hit) + 1


def test_each_ranker_list_is_its_own_order_and_marks_what_reached_the_top_k(tiny_graph):
    retrieval, inspection = inspected(tiny_graph, "hybrid")
    placed = {hit.chunk_id: rank for rank, hit in enumerate(retrieval.hits, start=1)}
    for rows in (inspection.vector, inspection.bm25, inspection.fusion):
        assert 0 < len(rows) <= SHOWN
        assert [row.rank for row in rows] == list(range(1, len(rows) + 1))
        assert [row.score for row in rows] == sorted((row.score for row in rows), reverse=True)
        assert all(row.placed == placed.get(row.chunk) for row in rows)
    # plain hybrid's top k is the fusion's head
    assert [row.chunk for row in inspection.fusion[: len(retrieval.hits)]] == list(placed)
    # each list is what that ranker alone returns as a method
    for ranker, rows in (("vector", inspection.vector), ("bm25", inspection.bm25)):
        alone = tiny_graph.search(QUESTION, method=ranker, top=3).hits
        assert [row.chunk for row in rows[:3]] == [hit.chunk_id for hit in alone]
        assert [row.score for row in rows[:3]] == [round(hit.stage_score, 6) for hit in alone]


def test_names_and_the_link_they_lead_to_are_reported_with_the_name_followed(tiny_graph):
    retrieval, inspection = inspected(tiny_graph, "hybrid+names+links")
    [named] = [n for n in inspection.names if n.name == "Big Stone Gap"]
    assert named.placed and [c["title"] for c in named.chunks] == ["Big Stone Gap (film)"]
    link = next(step for step in inspection.links if step.to_title == "Adriana Trigiani")
    assert (link.from_title, link.name) == ("Big Stone Gap (film)", "Adriana Trigiani")
    assert retrieval.hits[link.rank - 1].chunk_id == link.to_chunk
    assert [s["stage"] for s in inspection.timings] == [step.stage for step in retrieval.trace]
    assert not inspection.ppr and inspection.ppr_detail == ""


def test_a_plain_ranker_still_shows_the_names_it_did_not_use(tiny_graph):
    _, inspection = inspected(tiny_graph, "hybrid")
    assert "Big Stone Gap" in [n.name for n in inspection.names]
    assert not any(n.placed for n in inspection.names)
    assert inspection.links == [] and inspection.route["used"] is False


def test_the_walk_s_placements_are_its_hits_with_their_seed(tiny_graph):
    retrieval, inspection = inspected(tiny_graph, "ppr", top=6)
    walked = [hit for hit in retrieval.hits if hit.found_by == "ppr"]
    assert [step.to_chunk for step in inspection.ppr] == [hit.chunk_id for hit in walked]
    assert all(step.from_title and step.name for step in inspection.ppr)
    assert "seed(s)" in inspection.ppr_detail


def test_auto_reports_the_route_it_took(tiny_graph):
    retrieval, inspection = inspected(tiny_graph, "auto")
    assert inspection.route["used"] is True
    assert retrieval.method == f"auto:{inspection.route['method']}" == inspection.method
    assert inspection.route["reason"] and inspection.route["kind"] in ("lookup", "multihop", "global")
    assert inspection.to_json()["route"]["signals"]["names"] == inspection.route["signals"]["names"]
