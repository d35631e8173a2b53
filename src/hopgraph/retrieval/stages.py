"""Retrieval stages as array operations over chunk rows.

Rankers return one score per chunk row (a dense array: cheap at this scale and easy to fuse);
expanders take rows and return rows. Methods (methods.py) compose them under a Budget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.sparse_scores import SparseScores
from hopgraph.retrieval.vector_search import MIN_CANDIDATES

Scores = np.ndarray | SparseScores  # one score per chunk row, dense or as scored rows plus the rest


def vector_scores(index: SearchIndex, question_vector: np.ndarray, depth: int = MIN_CANDIDATES) -> np.ndarray:
    """Cosine similarity of the question with every chunk (vectors are normalised); through an ANN
    index, with every row but the best `depth` or more at a floor (retrieval/vector_search.py)."""
    return index.vector_search.scores(question_vector, depth)  # type: ignore[union-attr]


def vector_ranking(index: SearchIndex, question_vector: np.ndarray, depth: int = MIN_CANDIDATES) -> Scores:
    """`vector_scores` as the methods rank with it: through an ANN index or the database, only the
    rows found are held (sparse_scores.py); exact search keeps its dense cosines."""
    sparse_scores = getattr(index.vector_search, "sparse_scores", None)  # AnnSearch, DatabaseSearch
    if sparse_scores is None:
        return vector_scores(index, question_vector, depth)
    return sparse_scores(question_vector, depth)


def bm25_scores(index: SearchIndex, question: str) -> np.ndarray:
    return index.keyword.scores(question)


def rank_positions(scores: np.ndarray, depth: int) -> np.ndarray:
    """1-based rank of each row among the top `depth` by score; 0 means "not ranked": beyond
    depth, or a score ≤ 0 (no query term for BM25, an unrelated text for cosine)."""
    ranks = np.zeros(len(scores), dtype=np.int64)
    top = top_rows(scores, depth)
    top = top[scores[top] > 0]
    ranks[top] = np.arange(1, len(top) + 1)
    return ranks


def ranked_rows(scores: Scores, depth: int) -> np.ndarray:
    """The rows `rank_positions` ranks, in rank order (its rank r is position r - 1 here).

    Only a score > 0 is ranked, so where few rows score above 0 (BM25 of rare words, ANN search's
    floor) the best of those few are the answer: they come first in the order top_rows sorts by,
    and among themselves keep its ties by row (a million rows: ~1 ms instead of ~15)."""
    if isinstance(scores, SparseScores):
        top = scores.top(depth)
        return top[scores.at(top) > 0]
    if len(scores) >= LARGE:
        positive = np.flatnonzero(scores > 0)
        if len(positive) <= len(scores) // 4:
            return positive[top_rows(scores[positive], depth)]
    top = top_rows(scores, depth)
    return top[scores[top] > 0]


def positions_of(ranked: np.ndarray, n: int) -> np.ndarray:
    """`rank_positions` as an array from `ranked_rows`: 1-based rank, 0 for rows not ranked."""
    ranks = np.zeros(n, dtype=np.int64)
    ranks[ranked] = np.arange(1, len(ranked) + 1)
    return ranks


def fuse_ranked(rankings: list[np.ndarray], k: int, tiebreak: Scores,
                weights: Sequence[float] | None = None) -> Scores:
    """`fuse_ranks` of the rankings' positions plus `tiebreak`, adding in the same order row by row
    (each ranking's 1 / (k + rank), then the tie-break), so the sums are the same to the bit; but it
    touches only the ranked rows, where the dense sum touched every row once per ranking. A sparse
    tie-break gives sparse scores: the ranked rows and its own rows, the rest at its rest. With
    `weights` (one per ranking) a ranking adds weight / (k + rank) instead."""
    rows = np.unique(np.concatenate(rankings)) if rankings else np.zeros(0, dtype=np.int64)
    partial = np.zeros(len(rows), dtype=np.float64)
    for ranked, weight in zip(rankings, weights or [1.0] * len(rankings), strict=True):
        partial[np.searchsorted(rows, ranked)] += weight / (k + np.arange(1, len(ranked) + 1))
    if isinstance(tiebreak, SparseScores):
        scored = np.union1d(rows, tiebreak.rows)
        summed = tiebreak.at(scored)
        at = np.searchsorted(scored, rows)
        summed[at] = partial + summed[at]
        return SparseScores(scored, summed, tiebreak.rest, tiebreak.n)
    fused = np.array(tiebreak, dtype=np.float64)  # a row no ranking reached: 0 + tie-break is the tie-break
    fused[rows] = partial + fused[rows]
    return fused


def reciprocal_rank_fusion(rankings: list[np.ndarray], k: int, depth: int) -> np.ndarray:
    """RRF: each ranking adds 1 / (k + rank) for the rows in its top `depth`.

    A larger k flattens the head of each list (k = 60 is Cormack et al.'s default), so a chunk
    ranked well by *both* rankers beats one ranked first by only one; a smaller k trusts each
    ranker's top more. hopgraph's default, k = 10, measured best on both shared sets
    (docs/BENCHMARKS.md).
    """
    return fuse_ranks([rank_positions(scores, depth) for scores in rankings], k)


def fuse_ranks(rank_arrays: list[np.ndarray], k: int) -> np.ndarray:
    """Sum of 1 / (k + rank) over the rank arrays (rank 0 = not ranked, adds nothing)."""
    fused = np.zeros(len(rank_arrays[0]), dtype=np.float64)
    for ranks in rank_arrays:
        ranked = ranks > 0
        fused[ranked] += 1.0 / (k + ranks[ranked])
    return fused


def top_rows(scores: Scores, k: int, exclude: set[int] | frozenset[int] = frozenset()) -> np.ndarray:
    """The k best rows by score, best first, skipping `exclude` (argpartition, then a small sort)."""
    if isinstance(scores, SparseScores):
        return scores.top(k, exclude)
    n = len(scores)
    want = min(n, k + len(exclude))
    if want <= 0:
        return np.zeros(0, dtype=np.int64)
    # every row scoring at least the want-th best, so ties at the cut are all present
    part = _at_least_the_cut(scores, want) if want < n else np.arange(n)
    ordered = part[np.lexsort((part, -scores[part]))]  # by score, ties by row for determinism
    if exclude:
        ordered = ordered[~np.isin(ordered, list(exclude))]
    return ordered[:k]


BLOCK = 64  # rows per block when a large array's cut is bounded from its block maxima
LARGE = 1 << 16  # from this many rows on (below, the plain partition is as fast)


def _at_least_the_cut(scores: np.ndarray, want: int) -> np.ndarray:
    """The rows scoring at least the want-th best score, in row order.

    A large array is first narrowed, exactly: the want-th best of its block maxima is a lower bound
    of the want-th best score (those maxima are want distinct rows), so every row at or above the
    true cut scores at least that bound. Partitioning the few rows above the bound then finds the
    same cut, and the same rows, as partitioning them all (a million rows: ~1 ms against ~7 ms)."""
    rows = None
    if len(scores) >= LARGE and want * BLOCK * 4 <= len(scores):
        whole = len(scores) - len(scores) % BLOCK
        maxima = scores[:whole].reshape(-1, BLOCK).max(axis=1)
        bound = maxima[np.argpartition(-maxima, want - 1)[want - 1]]
        rows = np.flatnonzero(scores >= bound)
    if rows is None or len(rows) > len(scores) // 4:  # a flat array: the bound narrowed little
        cut = scores[np.argpartition(-scores, want - 1)[want - 1]]
        return np.flatnonzero(scores >= cut)
    values = scores[rows]
    cut = values[np.argpartition(-values, want - 1)[want - 1]]
    return rows[values >= cut]


def names_in_question(index: SearchIndex, question: str) -> list[tuple[int, str]]:
    """(row, surface) for every chunk most about a name the question mentions: exactly (any case;
    one word only capitalised; not only as a word of a quoted title), then the names it writes in
    part (retrieval/partial_names.py)."""
    found = []
    matched = []
    quoted = _quoted_spans(question)
    for surface_index in index.question_names.find(question):
        folded = index.question_names.surfaces[surface_index]
        surface = index.display_names.get(folded, folded)
        if " " not in surface and not re.search(rf"(?<!\w){re.escape(surface)}(?!\w)", question, re.I):
            continue
        if " " not in surface and not _capitalised_in(surface, question):
            continue  # one word counts capitalised ("Young", not "a young actor"); longer names in any case
        if QUOTED_TITLE_IS_ONE_NAME and quoted and _only_inside_quotes(surface, question, quoted):
            continue  # "Young" in "The Young and the Restless" is a word of that title, not the town
        matched.append(surface)
        found.extend((row, surface) for row in index.rows_named.get(folded, []))
    partial = index.partial_names.find(question, matched)
    found.extend((row, index.display_names.get(folded, folded)) for row, folded in partial)
    return found


# A quoted title is one name: the names of its words are not the question's (a switch, so
# bench/rules.py can measure the rule).
QUOTED_TITLE_IS_ONE_NAME = True
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')


def _quoted_spans(question: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted text, its inner spaces trimmed: `" A Perfect Murder"` is one title."""
    spans = []
    for match in _QUOTED.finditer(question):
        group = 1 if match.group(1) is not None else 2
        start, end = match.span(group)
        inner = match.group(group)
        spans.append((start + len(inner) - len(inner.lstrip()), end - len(inner) + len(inner.rstrip())))
    return spans


def _only_inside_quotes(surface: str, question: str, quoted: list[tuple[int, int]]) -> bool:
    """Does the question write the name only as a part of quoted titles (never alone, never as a
    whole quoted title)? A quoted title is one name: the names of its words are not the question's."""
    places = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(surface)}(?!\w)", question, re.I)]
    return bool(places) and all(any(start <= a and b <= end and (a, b) != (start, end) for start, end in quoted)
                                for a, b in places)


def _capitalised_in(word: str, question: str) -> bool:
    return any(m.group(0)[:1].isupper() for m in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", question, re.I))


def linked_from(index: SearchIndex, seeds: list[int]) -> list[tuple[int, int, int]]:
    """(target row, seed row, name id) for every link out of the seeds, first seed first."""
    out = []
    for seed in seeds:
        start, end = index.links.indptr[seed], index.links.indptr[seed + 1]
        targets = index.links.indices[start:end]
        name_ids = index.links.data[start:end]
        out.extend((int(t), seed, int(n)) for t, n in zip(targets, name_ids, strict=True))
    return out


def link_weights_from(index: SearchIndex, seeds: list[int]) -> list[float]:
    """The weights of the links `linked_from` lists, in its order (the two matrices share a pattern)."""
    out: list[float] = []
    for seed in seeds:
        out.extend(index.link_weights.data[index.link_weights.indptr[seed]:index.link_weights.indptr[seed + 1]]
                   .tolist())
    return out
