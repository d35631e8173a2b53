"""Global search: questions about a whole collection ("what are the main themes?"), answered from
community reports rather than from chunks.

With an LLM (Microsoft GraphRAG's map-reduce): the reports of one level are shuffled (fixed seed)
into batches of `batch_tokens`; *map* — each batch answers the question as points scored 0-100;
points scored 0 are dropped; *reduce* — the rest, best first, are packed into `context_tokens` and
the model writes the final answer citing chunk ids. A failed map batch is counted, not fatal.
Without an LLM: reports are ranked by relevance to the question (embedding cosine + BM25 over the
report texts, with the report's importance rating as a prior) and the answer is the most relevant
as labelled themes (query/themes.py): each named by its community's labels, with the sentences of
its chunks closest to that name and their chunk citations.
Dynamic community selection (optional): coarse communities are rated first and only the children
of relevant ones are rated next, down to the level asked for; only the selection is mapped.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from hopgraph.llm import LLMClient, LLMError, LLMRequest, LLMResult
from hopgraph.prompts import community_rating, global_map, global_reduce
from hopgraph.query.themes import ChunksOf, render, themes
from hopgraph.query.writers import checked_citations
from hopgraph.records.communities import CommunityReport, CommunityTree
from hopgraph.text.bm25 import KeywordIndex
from hopgraph.text.embed import Embedder
from hopgraph.text.tokens import count_tokens, fit

# Offline relevance = a weighted sum of three signals in [0, 1]. The question-specific ones only
# count where a report stands out: a generic question ("main themes of this story?") shares few
# words with any report and is about equally close to all of them, so the importance prior decides.
W_SEMANTIC, W_LEXICAL, W_PRIOR = 0.4, 0.3, 0.3
LEXICAL_HALF = 4.0  # the BM25 score that counts half: one rare term matching is ~2-4
# Interrogatives carry no topic; bm25s's English stopwords keep them ("what" matched "What good").
QUESTION_WORDS = frozenset({"what", "who", "whom", "whose", "which", "why", "how", "when", "where", "does", "did",
                            "do", "is", "are", "was", "were"})
_WORD = re.compile(r"(?u)\b\w\w+\b")
MAP_MAX_TOKENS, REDUCE_MAX_TOKENS, RATE_MAX_TOKENS = 1200, 1500, 600


@dataclass(frozen=True)
class GlobalBudget:
    level: int = 0  # community level to read (0 = coarsest); with `dynamic`, the deepest to descend to
    batch_tokens: int = 2000  # reports per map call, by estimated tokens
    context_tokens: int = 4000  # points packed into the reduce call
    max_reports: int = 60  # reports read at most (the most relevant, if more are selected)
    themes: int = 6  # offline: labelled themes in the answer (query/themes.py)
    sentences_per_theme: int = 2  # offline: supporting sentences (or findings) per theme
    seed: int = 42  # the shuffle of reports into batches: same seed, same batches, same cache keys
    dynamic: bool = False
    threshold: float = 5.0  # dynamic selection: relevance 0-10 a community needs to be descended into


@dataclass
class Point:
    """One point of the answer: from a map batch (LLM) or a report's finding (offline)."""

    text: str
    score: int  # helpfulness 0-100
    chunk_ids: list[int]
    community_ids: list[int]  # the reports it came from


@dataclass
class GlobalResult:
    answer: str
    citations: list[int]  # chunk ids
    points: list[Point]  # what the answer was built from, best first
    dropped_zero: int = 0  # map points scored 0
    left_out: list[Point] = field(default_factory=list)  # scored > 0 but past the context budget
    mode: str = "extractive"  # or "llm:<model>"
    used: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    retrieval: None = None  # global search reads reports, not chunks: no ranking of hits


# --- offline relevance --------------------------------------------------------------------------

def relevance(question: str, reports: Sequence[CommunityReport], embedder: Embedder | None = None) -> np.ndarray:
    """0-10 per report, relative to the best report (10): see W_SEMANTIC, W_LEXICAL, W_PRIOR."""
    if not reports:
        return np.zeros(0)
    texts = [r.text() for r in reports]
    semantic = np.zeros(len(texts))
    if embedder is not None:
        cosine = embedder.embed(texts) @ embedder.embed_query(question)
        median = float(np.median(cosine))
        semantic = np.clip((cosine - median) / max(1e-6, 1.0 - median), 0.0, 1.0)  # excess over typical
    prior = np.array([min(max(r.rating, 0.0), 10.0) / 10 for r in reports])
    score = W_SEMANTIC * semantic + W_LEXICAL * _lexical(question, texts) + W_PRIOR * prior
    best = float(score.max())
    return 10 * score / best if best > 0 else score


def _lexical(question: str, texts: Sequence[str]) -> np.ndarray:
    """Saturated BM25 of the question's topic words, times the share of them the reports know at
    all: a question whose words are mostly absent ("themes", "story") is not decided by the rest."""
    words = [w for w in _WORD.findall(question.lower()) if w not in STOPWORDS_EN and w not in QUESTION_WORDS]
    if not words:
        return np.zeros(len(texts))
    index = KeywordIndex(texts)
    known = index.terms(" ".join(words))
    bm25 = index.scores(" ".join(words)).astype(float)
    return bm25 / (bm25 + LEXICAL_HALF) * (len(known) / len(words))


def rank_reports(question: str, reports: Sequence[CommunityReport],
                 embedder: Embedder | None = None) -> list[tuple[CommunityReport, float]]:
    """Reports with their relevance, best first (ties: the coarser level first, then id)."""
    scores = relevance(question, reports, embedder)
    order = sorted(range(len(reports)), key=lambda i: (-scores[i], reports[i].level, reports[i].community_id))
    return [(reports[i], round(float(scores[i]), 2)) for i in order]


# --- dynamic community selection -----------------------------------------------------------------

Rater = Callable[[list[CommunityReport]], dict[int, float]]  # reports → community id → relevance 0-10


def select_communities(tree: CommunityTree, by_id: dict[int, CommunityReport], budget: GlobalBudget,
                       rate: Rater, used: dict[str, Any]) -> list[CommunityReport]:
    """Top-down: rate the roots, descend into the children of those at or above the threshold
    (down to `budget.level`). A relevant community none of whose children is relevant is kept
    itself: its own report is then the most specific relevant one."""
    frontier = [c.id for c in tree.communities if c.level == 0 and c.id in by_id]
    selected: list[int] = []
    rated = pruned = 0
    while frontier:
        ratings = rate([by_id[c] for c in frontier])
        rated += len(frontier)
        relevant = {c for c in frontier if ratings.get(c, 0.0) >= budget.threshold}
        pruned += len(frontier) - len(relevant)
        # Parents whose children were rated in this round and none passed: keep the parent.
        for parent in {tree.communities[c].parent for c in frontier} - {None}:
            if not relevant & set(tree.communities[parent].children):  # type: ignore[index]
                selected.append(parent)  # type: ignore[arg-type]
        next_frontier = []
        for community_id in sorted(relevant):
            community = tree.communities[community_id]
            children = [c for c in community.children if c in by_id]
            if children and community.level < budget.level:
                next_frontier += children
            else:
                selected.append(community_id)
        frontier = next_frontier
    used.update(communities_rated=rated, communities_pruned=pruned)
    return [by_id[c] for c in sorted(set(selected))]


class Relevance:
    """Offline relevance of every report, computed once on first use (it embeds every report)."""

    def __init__(self, question: str, reports: Sequence[CommunityReport], embedder: Embedder | None) -> None:
        self.question, self.reports, self.embedder = question, reports, embedder
        self._scores: dict[int, float] | None = None

    @property
    def scores(self) -> dict[int, float]:
        if self._scores is None:
            ranked = rank_reports(self.question, self.reports, self.embedder)
            self._scores = {r.community_id: s for r, s in ranked}
        return self._scores

    def rank(self, reports: Sequence[CommunityReport]) -> list[tuple[CommunityReport, float]]:
        """`reports` best first, by the relevance computed over all reports."""
        scores = self.scores
        ranked = sorted(reports, key=lambda r: (-scores[r.community_id], r.level, r.community_id))
        return [(r, scores[r.community_id]) for r in ranked]

    def rate(self, batch: list[CommunityReport]) -> dict[int, float]:
        """As a dynamic-selection rater: 0-10, no calls."""
        return {r.community_id: self.scores[r.community_id] for r in batch}


def llm_rater(question: str, client: LLMClient, batch_tokens: int, used: dict[str, Any]) -> Rater:
    """Batched rating calls over title + summary (short: many reports per call). A report the
    model does not rate counts as irrelevant, and is counted in used["unrated"]."""
    def rate(batch: list[CommunityReport]) -> dict[int, float]:
        texts = {r.community_id: f"[report {r.community_id}] {r.title}\n{r.summary}" for r in batch}
        groups = _batches(list(texts), lambda c: count_tokens(texts[c]), batch_tokens, community_rating.MAX_RATED)
        requests = [LLMRequest(community_rating.messages(question, [texts[c] for c in group]),
                               community_rating.RatingReply, RATE_MAX_TOKENS, step="global_rate")
                    for group in groups]
        ratings: dict[int, float] = {}
        for group, result in zip(groups, client.complete_many(requests), strict=True):
            if account(result, used, "rate"):
                ratings.update({r.report: float(r.relevance) for r in result.value.ratings if r.report in group})
        used["unrated"] = used.get("unrated", 0) + len(set(texts) - set(ratings))
        return ratings
    return rate


# --- the search -----------------------------------------------------------------------------------

def global_search(question: str, reports: Sequence[CommunityReport], tree: CommunityTree,
                  budget: GlobalBudget | None = None, client: LLMClient | None = None,
                  embedder: Embedder | None = None, chunks_of: ChunksOf | None = None) -> GlobalResult:
    """Answer from the reports of `budget.level` (or the dynamic selection): map-reduce with
    `client`, else as labelled themes (supporting sentences from `chunks_of`, see query/themes.py).
    `used` says what it read and spent."""
    budget = budget or GlobalBudget()
    used: dict[str, Any] = {"llm_calls": 0, "tokens_in": 0, "tokens_out": 0, "cached_calls": 0}
    by_id = {r.community_id: r for r in reports}
    level_reports = [by_id[c.id] for c in tree.at_level(budget.level) if c.id in by_id]
    # Only what may be read is embedded: the level's reports, or with dynamic selection every level.
    offline = Relevance(question, list(reports) if budget.dynamic else level_reports, embedder)
    chosen = level_reports
    if budget.dynamic:
        rate = llm_rater(question, client, budget.batch_tokens, used) if client else offline.rate
        chosen = select_communities(tree, by_id, budget, rate, used)
    chosen = _cap(chosen, budget.max_reports, offline)
    used.update(level=budget.level, reports_at_level=len(level_reports), reports_read=len(chosen))
    if client is None:
        return _extractive(chosen, budget, offline, used, chunks_of, embedder)
    result = _map_reduce(question, chosen, budget, client, used)
    full_level = _cap(level_reports, budget.max_reports, offline)
    used["map_calls_without_selection"] = len(_report_batches(full_level, budget))
    used["calls_saved"] = used["map_calls_without_selection"] + 1 - used["llm_calls"]  # +1: the reduce
    return result


def _cap(reports: list[CommunityReport], limit: int, offline: Relevance) -> list[CommunityReport]:
    """At most `limit` reports: the most relevant ones (offline relevance), in their original order.
    Only a cap that bites costs the embedding of the reports."""
    if len(reports) <= limit:
        return reports
    keep = {r.community_id for r, _ in offline.rank(reports)[:limit]}
    return [r for r in reports if r.community_id in keep]


def _extractive(reports: list[CommunityReport], budget: GlobalBudget, offline: Relevance, used: dict[str, Any],
                chunks_of: ChunksOf | None, embedder: Embedder | None) -> GlobalResult:
    found = themes(offline.rank(reports), budget.themes, budget.sentences_per_theme, chunks_of, embedder)
    points = [Point(f"{t.name}: " + " ".join(s for s, _ in t.sentences), round(10 * t.relevance), t.chunk_ids,
                    [t.community_id]) for t in found]
    used["themes"] = len(found)
    used["context_tokens"] = sum(count_tokens(p.text) for p in points)
    citations = list(dict.fromkeys(c for p in points for c in p.chunk_ids))
    return GlobalResult(render(found), citations, points, used=used)


# --- map-reduce -------------------------------------------------------------------------------------

def _render(report: CommunityReport) -> str:
    return f"[report {report.community_id}]\n{report.text()}"


def _batches(items: list[Any], cost: Callable[[Any], int], budget_tokens: int,
             max_items: int = 10**9) -> list[list[Any]]:
    """Consecutive items into groups of at most `budget_tokens` (an item alone may exceed it)."""
    groups: list[list[Any]] = []
    used = 0
    for item in items:
        if not groups or used + cost(item) > budget_tokens or len(groups[-1]) >= max_items:
            groups.append([])
            used = 0
        groups[-1].append(item)
        used += cost(item)
    return groups


def _report_batches(reports: list[CommunityReport], budget: GlobalBudget) -> list[list[CommunityReport]]:
    """Shuffled with the budget's seed, so related reports (neighbouring ids) spread across batches
    and the same question over the same reports makes the same requests (cache hits on a re-run)."""
    shuffled = sorted(reports, key=lambda r: r.community_id)
    random.Random(budget.seed).shuffle(shuffled)
    overhead = count_tokens(global_map.SYSTEM)
    return _batches(shuffled, lambda r: count_tokens(_render(r)), max(1, budget.batch_tokens - overhead))


def account(result: LLMResult[Any] | LLMError, used: dict[str, Any], step: str) -> bool:
    """Counts one call's calls and tokens into `used`; False (and counted) for a failed one."""
    if isinstance(result, LLMError):
        used[f"failed_{step}"] = used.get(f"failed_{step}", 0) + 1
        used.setdefault("errors", []).append(str(result))
        return False
    used["llm_calls"] += 1
    used[f"{step}_calls"] = used.get(f"{step}_calls", 0) + 1
    used["tokens_in"] += result.tokens_in
    used["tokens_out"] += result.tokens_out
    used["cached_calls"] += result.cached
    return True


def _map(question: str, batches: list[list[CommunityReport]], client: LLMClient,
         used: dict[str, Any]) -> tuple[list[Point], int]:
    """Every batch's points with their cited chunks checked against the batch; score-0 points dropped."""
    requests = [LLMRequest(global_map.messages(question, [_render(r) for r in batch]), global_map.MapReply,
                           MAP_MAX_TOKENS, step="global_map") for batch in batches]
    points, dropped_zero = [], 0
    for batch, result in zip(batches, client.complete_many(requests), strict=True):
        if not account(result, used, "map"):
            continue
        citable = {c for r in batch for c in r.citations}
        for point in result.value.points:
            kept = keep_citable(point.chunk_ids, citable, used)
            if point.score == 0:
                dropped_zero += 1
            else:
                points.append(Point(point.description.strip(), point.score, kept, [r.community_id for r in batch]))
    return points, dropped_zero


def keep_citable(chunk_ids: Sequence[int], citable: set[int], used: dict[str, Any]) -> list[int]:
    """The cited chunks that were in the material; the others are dropped and counted in `used`
    (the one citation policy, query/writers.py)."""
    kept, dropped = checked_citations(chunk_ids, citable)
    used["dropped_citations"] = used.get("dropped_citations", 0) + dropped
    return kept


def point_line(number: int, point: Point) -> str:
    cited = f" [chunks {', '.join(map(str, point.chunk_ids))}]" if point.chunk_ids else ""
    return f"[point {number}, helpfulness {point.score}] {point.text}{cited}"


def pack(points: list[Point], context_tokens: int) -> tuple[list[Point], list[Point]]:
    """Best first (stable: map order breaks ties), as many as fit the context (text/tokens.py `fit`):
    the point that would overflow it and every one after it are left out, so what is read is always
    the best prefix."""
    ranked = sorted(points, key=lambda p: -p.score)
    kept = fit([count_tokens(point_line(n, p)) for n, p in enumerate(ranked, start=1)], context_tokens)
    return ranked[:kept], ranked[kept:]


def _map_reduce(question: str, reports: list[CommunityReport], budget: GlobalBudget, client: LLMClient,
                used: dict[str, Any]) -> GlobalResult:
    batches = _report_batches(reports, budget)
    used["batches"] = len(batches)
    points, dropped_zero = _map(question, batches, client, used)
    packed, left_out = pack(points, budget.context_tokens)
    lines = [point_line(n, p) for n, p in enumerate(packed, start=1)]
    used.update(points_packed=len(packed), points_left_out=len(left_out),
                context_tokens=sum(count_tokens(line) for line in lines))
    mode = f"llm:{client.model}"
    errors = used.pop("errors", [])
    if batches and used.get("failed_map", 0) == len(batches):  # the LLM failed, the reports did not
        raise LLMError(f"global search: all {len(batches)} map calls failed, so no report was read; "
                       f"the first: {errors[0] if errors else 'unknown'}")
    if not packed:
        return GlobalResult("None of the community reports read holds anything that answers this question.",
                            [], [], dropped_zero, left_out, mode, used, errors)
    allowed = {c for p in packed for c in p.chunk_ids}
    result = client.complete_many([LLMRequest(global_reduce.messages(question, lines), global_reduce.ReduceReply,
                                              REDUCE_MAX_TOKENS, step="global_reduce")])[0]
    if not account(result, used, "reduce"):
        # The map's work is not thrown away: the packed points are the answer, said to be so.
        errors += used.pop("errors", [])
        text = "The final answer could not be written (LLM error); the best points found:\n" + "\n".join(lines)
        return GlobalResult(text, sorted(allowed), packed, dropped_zero, left_out, mode, used, errors)
    citations = keep_citable(result.value.citations, allowed, used)
    return GlobalResult(result.value.answer.strip(), citations, packed, dropped_zero, left_out, mode, used, errors)
