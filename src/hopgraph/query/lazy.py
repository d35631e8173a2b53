"""Lazy global search (the LazyGraphRAG recipe): global questions without community reports.

Nothing is written at indexing time beyond the no-LLM concept graph and its communities, so the
indexing cost is that of plain vector RAG; the LLM is spent at query time, within a fixed budget.

1. Every chunk is scored once against the question: cosine and BM25, each divided by its best
   value over the corpus, averaged (a score in [0, 1] relative to the question's best chunk).
2. A community's chunks are the chunks its entities come from (a sparse community × chunk-row
   matrix). Level by level, starting with the level-0 communities, communities are taken greedily
   by their best chunk *not yet tested* — so a broad question with few terms spreads its tests over
   several communities instead of spending them all where its one best chunk sits — and each
   visited community has its best untested chunks tested for relevance: by the LLM when one is
   given (a yes/no verdict with a score), else by similarity (passes if its score is at least
   `pass_ratio` × the best chunk's score).
3. The search descends only into the sub-communities of communities with a passing chunk, and stops
   at `max_depth` levels or when the relevance-test budget is spent.
4. The answer comes from the chunks that passed, most relevant first: one LLM call over them packed
   into `context_tokens`, or offline the sentence of each that is closest to the question.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from hopgraph.errors import InputError
from hopgraph.llm import LLMClient, LLMError, LLMRequest, LLMResult
from hopgraph.prompts import lazy_answer, relevance
from hopgraph.query.extractive import best_sentences
from hopgraph.query.writers import checked_citations
from hopgraph.records.communities import CommunityTree
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.records.retrieval import Hit, Retrieval, TraceStep, Via
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.stages import bm25_scores, vector_scores
from hopgraph.text.tokens import count_tokens, pack

METHOD = "lazy_global"
# Offline pass rule: a chunk passes when its fused score is at least this share of the best chunk's.
# On the bundled book's three global questions (bench/global_cost.py) 0.6 passes 5, 16 and 30 of 82
# chunks; 0.5 passes 19-46 (most of a flat distribution, so the test tells little), 0.7 passes 4-15.
PASS_RATIO = 0.6
RELEVANCE_TOKENS = 40  # the verdict is two fields: a small cap keeps a rambling model cheap
ANSWER_TOKENS = 800


@dataclass(frozen=True)
class LazyBudget:
    """The limits of one lazy global search; `used` in the result reports what it spent of each."""

    relevance_tests: int = 24  # chunks tested in all (LLM calls, when an LLM judges)
    communities_per_level: int = 4  # communities visited per level
    chunks_per_community: int = 2  # untested chunks tested per visited community
    max_depth: int = 3  # levels of the community tree visited, level 0 first
    context_tokens: int = 4000  # passed chunks packed into the answer call
    top: int = 10  # passed chunks kept (hits, and the answer's evidence)

    def __post_init__(self) -> None:
        for name in ("relevance_tests", "communities_per_level", "chunks_per_community", "max_depth",
                     "context_tokens", "top"):
            if getattr(self, name) < 1:
                raise InputError(f"lazy global budget: {name} must be at least 1, got {getattr(self, name)}")


@dataclass(frozen=True)
class Verdict:
    passed: bool
    score: float  # 0-1: the LLM's score / 10, or the similarity relative to the best chunk


@dataclass
class LazyResult:
    answer: str
    citations: list[int]
    retrieval: Retrieval  # the passed chunks as hits: lazy global search is also a retrieval method
    used: dict[str, Any]
    mode: str = "extractive"
    errors: list[str] = field(default_factory=list)  # every corpus mode's result has them (context.CorpusResult)


@dataclass
class _Passed:
    row: int
    community: int
    level: int
    verdict: Verdict


@dataclass
class _Spend:
    """What the search has spent so far (LLM results are summed as they come back)."""

    tests: int = 0
    failed: int = 0
    last_error: str = ""
    calls: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    levels: list[dict[str, Any]] = field(default_factory=list)

    def add(self, result: LLMResult[Any]) -> None:
        self.calls += 1
        self.cached += int(result.cached)
        self.tokens_in += result.tokens_in
        self.tokens_out += result.tokens_out


Judge = Callable[[list[int], _Spend], list[Verdict]]


# --- scoring ----------------------------------------------------------------------------------------


def chunk_relevance(index: SearchIndex, question: str) -> tuple[np.ndarray, np.ndarray]:
    """(score per chunk row in [0, 1], question vector). Each signal is divided by its best value so
    the two are comparable and a threshold can be stated relative to the question's best chunk;
    rank fusion (RRF) would forget how close a chunk comes to the best one."""
    question_vector = index.embedder.embed_query(question)
    signals = [np.clip(vector_scores(index, question_vector), 0, None), np.clip(bm25_scores(index, question), 0, None)]
    # A signal that is zero everywhere (no query term in the corpus) says nothing: leave it out.
    normalised = [s / s.max() for s in signals if s.max() > 0]
    fused = np.mean(normalised, axis=0) if normalised else np.zeros(len(index), dtype=np.float64)
    return fused.astype(np.float64), question_vector


def community_rows(graph: KnowledgeGraph, tree: CommunityTree, row_of: dict[int, int],
                   n_rows: int) -> sparse.csr_matrix:
    """A (communities × chunk rows) 0/1 matrix: row c marks the chunks that c's entities come from."""
    rows, cols = [], []
    for community in tree.communities:
        chunks = set().union(*(graph.entities[e].chunks for e in community.entities if e in graph.entities))
        hit = [row_of[c] for c in chunks if c in row_of]
        rows += [community.id] * len(hit)
        cols += hit
    data = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(tree), n_rows))


def plan_level(members: sparse.csr_matrix, scores: np.ndarray, frontier: list[int], tested: np.ndarray,
               budget: LazyBudget, remaining: int) -> list[tuple[int, list[int]]]:
    """(community, chunk rows to test) for the communities visited at one level, best first.

    Greedy: the next community is the one whose best *untested* chunk scores highest, and its chunks
    become tested at once; so a community whose best chunks were taken by another ranks by what
    it adds. Each step is one sparse row-max over the frontier."""
    available = np.where(tested, 0.0, scores)  # a 0 drops out of the sparse product
    sub = members[frontier]
    plan: list[tuple[int, list[int]]] = []
    chosen = np.zeros(len(frontier), dtype=bool)
    while len(plan) < budget.communities_per_level and remaining > 0:
        best = np.asarray(sub.multiply(available).max(axis=1).todense()).ravel()
        best[chosen] = 0.0
        if not len(best) or best.max() <= 0:
            break  # nothing untested that resembles the question is left under this frontier
        pick = int(np.argmax(best))  # first of equals: the tree's (larger-first) order breaks ties
        rows = sub.indices[sub.indptr[pick] : sub.indptr[pick + 1]]
        rows = rows[available[rows] > 0]
        take = rows[np.lexsort((rows, -available[rows]))][: min(budget.chunks_per_community, remaining)]
        plan.append((frontier[pick], take.tolist()))
        chosen[pick] = True
        available[take] = 0.0
        remaining -= len(take)
    return plan


# --- relevance tests --------------------------------------------------------------------------------


def similarity_judge(scores: np.ndarray, pass_ratio: float) -> Judge:
    """Offline test: passes if the chunk's score is at least `pass_ratio` × the best chunk's score."""
    cut = pass_ratio * float(scores.max()) if len(scores) else 0.0

    def judge(rows: list[int], spend: _Spend) -> list[Verdict]:
        spend.tests += len(rows)
        return [Verdict(bool(scores[r] > 0 and scores[r] >= cut), float(scores[r])) for r in rows]

    return judge


def llm_judge(client: LLMClient, question: str, texts: list[str]) -> Judge:
    """One relevance call per chunk, in parallel up to the client's concurrency cap. A call that
    fails after the client's retries counts as spent and not passed: the budget is what was asked."""

    def judge(rows: list[int], spend: _Spend) -> list[Verdict]:
        requests = [LLMRequest(relevance.messages(question, texts[r]), relevance.RelevanceReply,
                               max_tokens=RELEVANCE_TOKENS, step="relevance") for r in rows]
        verdicts = []
        for result in client.complete_many(requests):
            spend.tests += 1
            if isinstance(result, LLMError):
                spend.failed += 1
                spend.last_error = str(result)
                verdicts.append(Verdict(False, 0.0))
                continue
            spend.add(result)
            verdicts.append(Verdict(result.value.relevant, result.value.score / 10))
        return verdicts

    return judge


# --- the search -------------------------------------------------------------------------------------


def lazy_global_search(index: SearchIndex, graph: KnowledgeGraph, tree: CommunityTree, question: str,
                       budget: LazyBudget | None = None, client: LLMClient | None = None,
                       pass_ratio: float = PASS_RATIO) -> LazyResult:
    """See the module docstring. With `client`, relevance tests and the answer use the LLM."""
    budget = budget or LazyBudget()
    trace: list[TraceStep] = []
    started = time.perf_counter()
    scores, question_vector = chunk_relevance(index, question)
    members = community_rows(graph, tree, index.row_of_chunk, len(index))
    trace.append(TraceStep("score chunks", _ms(started), f"{len(index)} chunks, {len(tree)} communities"))
    judge = llm_judge(client, question, index.table.texts) if client else similarity_judge(scores, pass_ratio)
    spend = _Spend()
    passed = _descend(tree, members, scores, budget, judge, spend, trace)
    if client is not None and spend.tests and spend.failed == spend.tests:
        # Not "no chunk is relevant": the model was never heard from. Say so (auto falls open to search).
        raise LLMError(f"lazy search: all {spend.tests} relevance calls to the LLM failed, so no chunk was "
                       f"judged; the last: {spend.last_error or 'unknown'}")
    passed.sort(key=lambda p: (-p.verdict.score, -scores[p.row], p.row))
    kept = passed[: budget.top]
    hits = [_hit(index, p) for p in kept]
    started = time.perf_counter()
    evidence = _pack({h.chunk_id: h.text for h in hits}, budget.context_tokens)
    if client is not None and evidence:
        answer, citations, dropped = _llm_answer(client, question, evidence, spend)
        mode = f"llm:{client.model}"
    else:
        answer, citations, dropped = _extractive_answer(index, question_vector, evidence), list(evidence), 0
        mode = "extractive"
    trace.append(TraceStep("answer", _ms(started), f"{len(evidence)} chunks, {mode}"))
    used = _used(budget, spend, passed, evidence, dropped, trace)
    return LazyResult(answer, citations, Retrieval(METHOD, hits, trace), used, mode)


def _descend(tree: CommunityTree, members: sparse.csr_matrix, scores: np.ndarray, budget: LazyBudget,
             judge: Judge, spend: _Spend, trace: list[TraceStep]) -> list[_Passed]:
    """Visit the tree level by level; the next frontier is the children of this level's passers."""
    tested = np.zeros(len(scores), dtype=bool)
    frontier = [c.id for c in tree.communities if c.level == 0]
    passed: list[_Passed] = []
    for depth in range(budget.max_depth):
        remaining = budget.relevance_tests - spend.tests
        if not frontier or remaining <= 0:
            break
        started = time.perf_counter()
        plan = plan_level(members, scores, frontier, tested, budget, remaining)
        rows = [r for _, picked in plan for r in picked]
        tested[rows] = True
        verdict_of = dict(zip(rows, judge(rows, spend), strict=True))  # a row is in one plan entry only
        found = [_Passed(r, community, depth, verdict_of[r]) for community, picked in plan for r in picked
                 if verdict_of[r].passed]
        passed += found
        passing = list(dict.fromkeys(p.community for p in found))
        spend.levels.append({"level": depth, "ranked": len(frontier), "visited": [c for c, _ in plan],
                             "passing": passing, "tests": len(rows), "passed_chunks": len(found)})
        trace.append(TraceStep(f"level {depth}", _ms(started), f"{len(frontier)} ranked, {len(plan)} visited, "
                               f"{len(rows)} tested, {len(passing)} passing"))
        frontier = [child for c in passing for child in tree.communities[c].children]
    return passed


def _hit(index: SearchIndex, passed: _Passed) -> Hit:
    row = passed.row
    return Hit(int(index.table.ids[row]), int(index.table.doc_ids[row]), index.title_of_row(row),
               index.table.texts[row], passed.verdict.score, "graph",
               Via(-1, f"community {passed.community}", f"(level {passed.level})"), source=index.source_of_row(row))


def _pack(chunks: dict[int, str], budget_tokens: int) -> dict[int, str]:
    """The chunks, in relevance order, that fit the token budget (text/tokens.py `pack`)."""
    return dict(zip(chunks, pack(list(chunks.values()), budget_tokens), strict=False))


def _llm_answer(client: LLMClient, question: str, evidence: dict[int, str],
                spend: _Spend) -> tuple[str, list[int], int]:
    """(answer, citations, citations dropped). A citation outside the evidence is dropped and
    counted rather than failing the query: the relevance budget is already spent by then."""
    result = client.complete_json(lazy_answer.messages(question, evidence), lazy_answer.LazyAnswerReply,
                                  max_tokens=ANSWER_TOKENS, step="lazy_answer")
    spend.add(result)
    kept, dropped = checked_citations(result.value.citations, evidence)
    return result.value.answer, kept, dropped


def _extractive_answer(index: SearchIndex, question_vector: np.ndarray, evidence: dict[int, str]) -> str:
    """Per chunk, in relevance order, the sentence closest to the question (query/extractive.py)."""
    if not evidence:
        return "No chunk passed the relevance tests."
    best = best_sentences(list(evidence.values()), question_vector, index.embedder.embed, min_words=4)
    return "\n".join(f"- {found[0]} [chunk {chunk_id}]" for chunk_id, found in zip(evidence, best, strict=True)
                     if found is not None)


def _used(budget: LazyBudget, spend: _Spend, passed: list[_Passed], evidence: dict[int, str], dropped: int,
          trace: list[TraceStep]) -> dict[str, Any]:
    return {
        "levels": spend.levels,
        "relevance_tests": spend.tests,
        "relevance_budget": budget.relevance_tests,
        "failed_tests": spend.failed,
        "passed_chunks": len(passed),
        "communities_with_passes": len({p.community for p in passed}),
        "llm_calls": spend.calls,
        "llm_cached": spend.cached,
        "tokens_in": spend.tokens_in,
        "tokens_out": spend.tokens_out,
        "context_chunks": len(evidence),
        "context_tokens": sum(count_tokens(t) for t in evidence.values()),
        "context_budget": budget.context_tokens,
        "dropped_citations": dropped,
        "ms": round(sum(step.ms for step in trace), 1),
    }


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
