"""A Retrieval ranks its hits: score 1/rank, the stage's own number kept in stage_score."""

from __future__ import annotations

from hopgraph.records.retrieval import Hit, Retrieval, Via


def hit(chunk: int, score: float, found_by: str = "hybrid") -> Hit:
    return Hit(chunk, 1, f"title {chunk}", "text", score, found_by)  # type: ignore[arg-type]


def test_scores_become_one_over_rank_and_the_stage_numbers_move_to_stage_score():
    # a link's weight (0.05) below a fused score (0.16) placed after it: the old scores were not monotone
    hits = [hit(1, 0.16), hit(2, 0.05, "link"), hit(3, 0.16), hit(4, 0.9, "ppr")]
    retrieval = Retrieval("hybrid+links", hits)
    assert [h.score for h in retrieval.hits] == [1.0, 0.5, 1 / 3, 0.25]
    assert [h.stage_score for h in retrieval.hits] == [0.16, 0.05, 0.16, 0.9]
    assert [h.chunk_id for h in retrieval.hits] == [1, 2, 3, 4]


def test_re_ranking_keeps_the_first_stage_number_and_leaves_the_first_retrieval_alone():
    first = Retrieval("hybrid", [hit(1, 0.3), hit(2, 0.2)])
    again = Retrieval("auto:hybrid", [first.hits[1], first.hits[0]])
    assert [(h.chunk_id, h.score, h.stage_score) for h in again.hits] == [(2, 1.0, 0.2), (1, 0.5, 0.3)]
    assert [(h.chunk_id, h.score) for h in first.hits] == [(1, 1.0), (2, 0.5)]


def test_an_unranked_hit_has_no_stage_score_and_keeps_its_fields_when_ranked():
    linked = Hit(7, 2, "A", "text", 0.05, "link", Via(3, "B", "A"), {"vector": 2}, "a.md#1")
    assert linked.stage_score is None
    (placed,) = Retrieval("x", [linked]).hits
    assert (placed.via, placed.ranks, placed.source, placed.found_by) == (linked.via, {"vector": 2}, "a.md#1", "link")
