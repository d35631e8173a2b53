"""Ranking and expansion stages as array operations: fusion math, row selection, names, CSR links."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import sparse

from hopgraph.retrieval import stages


def folded(found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Name matching in questions ignores case, so compare surfaces case-folded."""
    return sorted((row, surface.casefold()) for row, surface in found)


def row_of(index, title: str) -> int:
    rows = [r for r in range(len(index)) if index.title_of_row(r) == title]
    assert len(rows) == 1, f"expected one chunk for {title!r}, got {rows}"
    return rows[0]


# --- rank_positions --------------------------------------------------------------------------------


def test_rank_positions_are_one_based_by_descending_score():
    ranks = stages.rank_positions(np.array([0.2, 0.9, 0.5]), depth=10)
    assert ranks.tolist() == [3, 1, 2]


def test_rank_positions_leave_rows_with_score_zero_or_below_unranked():
    ranks = stages.rank_positions(np.array([0.0, 0.7, -0.3, 0.1]), depth=10)
    assert ranks.tolist() == [0, 1, 0, 2]


def test_rank_positions_leave_rows_beyond_depth_unranked():
    ranks = stages.rank_positions(np.array([4.0, 3.0, 2.0, 1.0]), depth=2)
    assert ranks.tolist() == [1, 2, 0, 0]


# --- reciprocal_rank_fusion ------------------------------------------------------------------------


def test_rrf_adds_one_over_k_plus_rank_from_each_ranking():
    first = np.array([5.0, 4.0, 0.0])  # ranks: row0 1st, row1 2nd, row2 unranked
    second = np.array([0.0, 4.0, 5.0])  # ranks: row2 1st, row1 2nd, row0 unranked
    fused = stages.reciprocal_rank_fusion([first, second], k=60, depth=100)
    assert fused == pytest.approx([1 / 61, 1 / 62 + 1 / 62, 1 / 61])


def test_rrf_with_k60_a_row_ranked_well_by_both_beats_a_row_first_in_only_one():
    # Row 1 is only second in each ranking; rows 0 and 2 are each first in one and absent from the other.
    first = np.array([5.0, 4.0, 0.0])
    second = np.array([0.0, 4.0, 5.0])
    fused = stages.reciprocal_rank_fusion([first, second], k=60, depth=100)
    assert int(np.argmax(fused)) == 1
    assert fused[1] > fused[0] and fused[1] > fused[2]


def test_rrf_a_row_first_in_both_rankings_beats_a_row_first_in_one_and_absent_from_the_other():
    first = np.array([0.9, 0.0, 0.5])
    second = np.array([0.8, 0.0, 0.0])
    third = np.array([0.0, 0.9, 0.0])
    fused = stages.reciprocal_rank_fusion([first, second, third], k=60, depth=100)
    assert fused[0] == pytest.approx(2 / 61)
    assert fused[1] == pytest.approx(1 / 61)
    assert fused[0] > fused[1]


def test_rrf_gives_nothing_for_scores_at_or_below_zero():
    cosine = np.array([0.5, -0.2, 0.0])
    bm25 = np.array([0.0, 0.0, 0.0])
    fused = stages.reciprocal_rank_fusion([cosine, bm25], k=60, depth=100)
    assert fused.tolist() == pytest.approx([1 / 61, 0.0, 0.0])


def test_rrf_gives_nothing_beyond_depth():
    scores = np.array([4.0, 3.0, 2.0, 1.0])
    fused = stages.reciprocal_rank_fusion([scores], k=60, depth=2)
    assert fused.tolist() == pytest.approx([1 / 61, 1 / 62, 0.0, 0.0])


def test_rrf_k_sets_the_weight_of_each_rank():
    scores = np.array([2.0, 1.0])
    fused = stages.reciprocal_rank_fusion([scores], k=1, depth=10)
    assert fused.tolist() == pytest.approx([1 / 2, 1 / 3])


# --- top_rows --------------------------------------------------------------------------------------


def test_top_rows_returns_best_rows_first():
    assert stages.top_rows(np.array([0.1, 0.5, 0.3, 0.4]), 3).tolist() == [1, 3, 2]


def test_top_rows_breaks_ties_by_lower_row_first():
    assert stages.top_rows(np.array([1.0, 2.0, 2.0, 1.0, 2.0]), 5).tolist() == [1, 2, 4, 0, 3]


def test_top_rows_breaks_ties_by_lower_row_first_when_it_cuts_a_large_array():
    assert stages.top_rows(np.ones(1000), 5).tolist() == [0, 1, 2, 3, 4]


def test_top_rows_matches_a_full_sort_by_score_then_row_on_arrays_with_many_ties():
    rng = np.random.default_rng(3)
    for _ in range(50):
        scores = rng.integers(0, 4, size=int(rng.integers(5, 400))).astype(np.float64)
        k = int(rng.integers(1, len(scores)))
        exclude = set(rng.choice(len(scores), size=3, replace=False).tolist())
        reference = [r for r in np.lexsort((np.arange(len(scores)), -scores)).tolist() if r not in exclude][:k]
        assert stages.top_rows(scores, k, exclude=exclude).tolist() == reference


def test_top_rows_skips_excluded_rows_and_still_returns_k():
    scores = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    assert stages.top_rows(scores, 2, exclude={0, 2}).tolist() == [1, 3]


def test_top_rows_with_k_larger_than_n_returns_every_row_in_order():
    assert stages.top_rows(np.array([0.2, 0.9, 0.5]), 10).tolist() == [1, 2, 0]


def test_top_rows_with_k_larger_than_what_exclude_leaves_returns_the_rest():
    assert stages.top_rows(np.array([0.2, 0.9, 0.5]), 10, exclude={1}).tolist() == [2, 0]


def test_top_rows_with_k_zero_or_no_rows_returns_nothing():
    assert stages.top_rows(np.array([1.0, 2.0]), 0).tolist() == []
    assert stages.top_rows(np.zeros(0), 3).tolist() == []


def test_top_rows_cuts_a_large_array_correctly():
    scores = np.random.default_rng(7).random(5000)
    expected = np.argsort(-scores, kind="stable")[:20]
    assert stages.top_rows(scores, 20).tolist() == expected.tolist()
    excluded = set(expected[:5].tolist())
    assert stages.top_rows(scores, 20, exclude=excluded).tolist() == np.argsort(-scores)[5:25].tolist()


# --- names_in_question -----------------------------------------------------------------------------


def test_names_in_question_returns_the_rows_of_each_named_document(tiny_graph):
    index = tiny_graph.search_index
    found = stages.names_in_question(index, "Did Donna Gigliotti ever work with Adriana Trigiani?")
    assert folded(found) == folded([(row_of(index, "Donna Gigliotti"), "Donna Gigliotti"),
                                    (row_of(index, "Adriana Trigiani"), "Adriana Trigiani")])


def test_names_in_question_finds_a_title_without_its_disambiguation_suffix(tiny_graph):
    index = tiny_graph.search_index
    found = stages.names_in_question(index, "Who produced Big Stone Gap?")
    assert folded(found) == [(row_of(index, "Big Stone Gap (film)"), "big stone gap")]


def test_names_in_question_needs_word_boundaries(tiny_graph):
    assert stages.names_in_question(tiny_graph.search_index, "Are there Big Stone Gaps in Stone Ages?") == []


def test_a_name_written_only_as_part_of_a_quoted_title_is_no_name_of_the_question(tiny_graph):
    index = tiny_graph.search_index
    village = [(row_of(index, "Greenwich Village"), "greenwich village")]
    # "The Young and the Restless" does not name Young, New South Wales: the quoted title is one name.
    assert stages.names_in_question(index, 'Who sang "Greenwich Village Blues" in 1962?') == []
    assert stages.names_in_question(index, "Who sang \u201cGreenwich Village Blues\u201d in 1962?") == []
    assert folded(stages.names_in_question(index, 'Who lived in " Greenwich Village " then?')) == village  # whole
    assert folded(stages.names_in_question(index, 'Is "Greenwich Village Blues" set in Greenwich Village?')) == village


def test_names_in_question_is_empty_for_a_question_without_names(tiny_graph):
    assert stages.names_in_question(tiny_graph.search_index, "who directed the film?") == []


# --- linked_from -----------------------------------------------------------------------------------


def test_linked_from_reads_target_seed_and_name_id_from_the_csr_rows():
    # row 0 → rows 2 (name 7) and 3 (name 8); row 1 → row 0 (name 9); row 2 has no links.
    links = sparse.csr_matrix((np.array([7, 8, 9]), (np.array([0, 0, 1]), np.array([2, 3, 0]))), shape=(4, 4))
    index = SimpleNamespace(links=links)
    assert sorted(stages.linked_from(index, [0])) == [(2, 0, 7), (3, 0, 8)]
    assert stages.linked_from(index, [1]) == [(0, 1, 9)]
    assert stages.linked_from(index, [2]) == []


def test_linked_from_lists_the_first_seed_first():
    links = sparse.csr_matrix((np.array([7, 9]), (np.array([0, 1]), np.array([2, 3]))), shape=(4, 4))
    index = SimpleNamespace(links=links)
    assert stages.linked_from(index, [1, 0]) == [(3, 1, 9), (2, 0, 7)]


def test_linked_from_follows_the_names_a_chunk_mentions(tiny_graph):
    index = tiny_graph.search_index
    film = row_of(index, "Big Stone Gap (film)")
    found = {(target, seed, index.name_surfaces[name_id]) for target, seed, name_id in
             stages.linked_from(index, [film])}
    assert found == {(row_of(index, "Adriana Trigiani"), film, "Adriana Trigiani"),
                     (row_of(index, "Donna Gigliotti"), film, "Donna Gigliotti")}


def test_linked_from_a_chunk_that_mentions_no_name_is_empty(tiny_graph):
    index = tiny_graph.search_index
    assert stages.linked_from(index, [row_of(index, "Stone Age")]) == []


@pytest.mark.parametrize("n", [70_000, 300_000])
def test_top_rows_of_a_large_array_is_the_plain_partition(n, monkeypatch):
    """The narrowed cut of a large array (block maxima) picks the very rows, in the very order, that
    partitioning every row does: dense cosines, ties at the cut, a floor with a few found rows."""
    rng = np.random.default_rng(n)
    floor = np.full(n, -1.0, dtype=np.float32)
    floor[rng.choice(n, 150, replace=False)] = rng.random(150, dtype=np.float32)
    arrays = [rng.random(n, dtype=np.float32), np.round(rng.random(n), 2), floor,
              np.zeros(n), np.r_[np.ones(10), np.zeros(n - 10)]]
    for scores in arrays:
        for k, exclude in [(1, frozenset()), (5, frozenset({3, 7})), (100, frozenset()), (3, frozenset(range(40)))]:
            fast = stages.top_rows(scores, k, exclude)
            monkeypatch.setattr(stages, "LARGE", 10**9)  # the plain partition
            plain = stages.top_rows(scores, k, exclude)
            monkeypatch.undo()
            assert np.array_equal(fast, plain), (scores[:5], k)


@pytest.mark.parametrize(("n", "share"), [(50, 0.3), (5_000, 0.3), (100_000, 0.3), (100_000, 0.0005)])
def test_fusing_the_ranked_rows_gives_the_dense_sum_to_the_bit(n, share):
    """hybrid's fusion over the ranked rows only equals the dense sum it replaced, bit for bit
    (a rare BM25 word: few rows score above 0; ANN's floor: few cosines do)."""
    rng = np.random.default_rng(n)
    cosine = rng.standard_normal(n).astype(np.float32) / 3
    if share < 0.01:
        cosine[rng.random(n) > share * 100] = -1.0
    keyword = np.where(rng.random(n) < share, rng.random(n) * 10, 0.0).astype(np.float32)
    keyword[: n // 10] = np.round(keyword[: n // 10])  # ties
    for depth, k in [(100, 10), (7, 60), (n, 10)]:
        ranks = [stages.rank_positions(cosine, depth), stages.rank_positions(keyword, depth)]
        dense = stages.fuse_ranks(ranks, k)
        dense += 1e-6 * cosine
        ranked = [stages.ranked_rows(cosine, depth), stages.ranked_rows(keyword, depth)]
        assert all(np.array_equal(stages.positions_of(r, n), p) for r, p in zip(ranked, ranks, strict=True))
        assert np.array_equal(stages.fuse_ranked(ranked, k, 1e-6 * cosine), dense)


def test_a_weighted_fusion_adds_each_rankings_weight_over_k_plus_rank():
    """Row 0 leads the vector ranking and row 2 the keyword one; weighted 3×, the keyword head wins."""
    vector, keyword = np.array([0, 1, 2]), np.array([2, 0, 1])
    plain = stages.fuse_ranked([vector, keyword], 10, np.zeros(4))
    weighted = stages.fuse_ranked([vector, keyword], 10, np.zeros(4), [1.0, 3.0])
    assert plain[0] == pytest.approx(1 / 11 + 1 / 12) and plain[2] == pytest.approx(1 / 13 + 1 / 11)
    assert plain[0] > plain[2]
    assert weighted[0] == pytest.approx(1 / 11 + 3 / 12) and weighted[2] == pytest.approx(1 / 13 + 3 / 11)
    assert weighted[2] > weighted[0] and weighted[3] == plain[3] == 0.0
    assert np.array_equal(stages.fuse_ranked([vector, keyword], 10, np.zeros(4), [1.0, 1.0]), plain)
