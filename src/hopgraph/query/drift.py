"""DRIFT search (Microsoft's Dynamic Reasoning and Inference with Flexible Traversal): global
context first, then local detail.

1. Primer: the community reports most relevant to the question (offline relevance, any level).
   With an LLM they give a draft answer and scored follow-up questions.
2. Follow-ups: the best `followups` questions are each answered by a local search of the
   knowledge graph (a callable, so this module does not need the engine); with an LLM each answer
   may raise further follow-ups, asked in the next round, up to `depth` rounds.
3. Final answer: the draft and the follow-up answers, best first, packed into `context_tokens`.
Without an LLM every step is extractive and the result says so: the primer is the reports' key
findings, the follow-ups are the reports' key entities, each answered by the sentences of its
local-search chunks that name it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hopgraph.llm import LLMClient, LLMError, LLMRequest
from hopgraph.prompts import drift as prompt
from hopgraph.query.global_search import Relevance, account, keep_citable
from hopgraph.query.local import LocalBudget, LocalResult
from hopgraph.records.communities import CommunityReport
from hopgraph.text.embed import Embedder
from hopgraph.text.sentences import split_sentences
from hopgraph.text.tokens import count_tokens, pack

LocalSearch = Callable[[str], LocalResult]
PRIMER_MAX_TOKENS, FOLLOWUP_MAX_TOKENS, FINAL_MAX_TOKENS = 1200, 800, 1500


@dataclass(frozen=True)
class DriftBudget:
    primer_reports: int = 5  # most relevant community reports the primer reads
    primer_tokens: int = 3000  # of report text in the primer call
    followups: int = 3  # follow-up questions asked per round
    depth: int = 1  # rounds of follow-ups (LLM: a round's answers may raise the next round's questions)
    local: LocalBudget = field(default_factory=lambda: LocalBudget(top=3))  # per follow-up
    followup_tokens: int = 1500  # of chunk text per follow-up answer call
    context_tokens: int = 4000  # draft + follow-up answers in the final call


@dataclass
class FollowUp:
    question: str
    score: int  # 0-100: how much it was expected to improve the answer
    depth: int  # round it was asked in (1 = raised by the primer)
    answer: str = ""
    citations: list[int] = field(default_factory=list)
    evidence: list[tuple[int, str]] = field(default_factory=list)  # (chunk id, what local search found)


@dataclass
class DriftResult:
    answer: str
    citations: list[int]
    draft: str  # the primer's answer
    followups: list[FollowUp]  # asked, in order
    mode: str = "extractive"  # or "llm:<model>"
    used: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    retrieval: None = None  # DRIFT's hits are its follow-ups' (in `followups`): no one ranking of its own

    @property
    def extractive(self) -> bool:
        return self.mode == "extractive"


def drift_search(question: str, reports: Sequence[CommunityReport], local: LocalSearch,
                 budget: DriftBudget | None = None, client: LLMClient | None = None,
                 embedder: Embedder | None = None) -> DriftResult:
    """Primer over the most relevant reports, follow-ups by local search, then a ranked answer."""
    budget = budget or DriftBudget()
    used: dict[str, Any] = {"llm_calls": 0, "tokens_in": 0, "tokens_out": 0, "cached_calls": 0,
                            "local_searches": 0, "chunks_read": 0}
    primer = _primer_reports(Relevance(question, reports, embedder).rank(reports), budget.primer_reports)
    used["primer_reports"] = len(primer)
    if client is None:
        return _extractive(question, primer, local, budget, used)
    return _with_llm(question, primer, local, budget, client, used)


def _primer_reports(ranked: list[tuple[CommunityReport, float]], limit: int) -> list[CommunityReport]:
    """The most relevant reports, skipping one whose findings mostly repeat a chosen one's: reports
    of every level compete, and a community and its sub-community often share their best findings."""
    chosen: list[CommunityReport] = []
    seen: set[str] = set()
    for report, _ in ranked:
        summaries = {f.summary for f in report.findings}
        if len(chosen) == limit:
            break
        if summaries and len(summaries & seen) * 2 > len(summaries):
            continue
        chosen.append(report)
        seen |= summaries
    return chosen


def best_sentence(text: str, names: Sequence[str]) -> str:
    """The sentence of a chunk that names the most of `names`, a whole sentence of 40+ characters
    preferred over a fragment."""
    sentences = split_sentences(text) or [text]
    folded = [n.casefold() for n in names if n]
    return max(sentences, key=lambda s: (sum(n in s.casefold() for n in folded), 40 <= len(s) <= 400))


def _search(local: LocalSearch, question: str, used: dict[str, Any]) -> LocalResult:
    used["local_searches"] += 1
    result = local(question)
    used["chunks_read"] += len(result.retrieval.hits)
    return result


# --- offline --------------------------------------------------------------------------------------

def key_entities(reports: Sequence[CommunityReport], question: str) -> list[tuple[str, int]]:
    """(entity name, index of its report) round-robin across the reports, so the follow-ups span
    the primer's communities; named entities (capitalised) before the concept graph's common noun
    phrases ("his face"), which make poor questions; names the question already holds skipped."""
    folded_question = question.casefold()
    seen: set[str] = set()
    named, common = [], []
    for rank in range(max((len(r.entities) for r in reports), default=0)):
        for position, report in enumerate(reports):
            if rank < len(report.entities):
                name = " ".join(report.entities[rank].split())
                key = name.casefold()
                if key in seen or key in folded_question or len(key) < 3:
                    continue
                seen.add(key)
                (named if name[:1].isupper() else common).append((name, position))
    return named + common


def _extractive(question: str, primer: list[CommunityReport], local: LocalSearch, budget: DriftBudget,
                used: dict[str, Any]) -> DriftResult:
    draft_lines, cited = [], []
    for report in primer:
        for finding in report.findings[:2]:
            if any(finding.summary in line for line in draft_lines):
                continue
            draft_lines.append(f"- [{' '.join(report.title.split())}] {finding.summary} "
                               f"[chunks {', '.join(map(str, finding.chunk_ids))}]")
            cited += finding.chunk_ids
    candidates = key_entities(primer, question)
    followups: list[FollowUp] = []
    for depth in range(1, budget.depth + 1):  # offline, each round asks about the next key entities
        for name, position in candidates[(depth - 1) * budget.followups: depth * budget.followups]:
            followup = FollowUp(f"What about {name}?", max(0, 100 - 10 * position), depth)
            result = _search(local, followup.question, used)
            seeds = [name, *(s.name for s in result.seeds)]
            followup.evidence = [(h.chunk_id, best_sentence(h.text, seeds)) for h in result.retrieval.hits]
            followup.citations = [chunk_id for chunk_id, _ in followup.evidence]
            followup.answer = "; ".join(f'"{" ".join(s.split())}" [chunk {c}]' for c, s in followup.evidence[:2])
            followups.append(followup)
    ranked = sorted(followups, key=lambda f: -f.score)  # stable: first asked first on ties
    lines = ["Extractive DRIFT answer (no LLM configured): the key findings of the most relevant community "
             "reports, then what local search found for their key entities.", "Primer (community reports):",
             *draft_lines, "Follow-ups (local search):"]
    for followup in ranked:
        lines.append(f"- {followup.question}")
        lines += [f'    "{" ".join(s.split())}" [chunk {c}]' for c, s in followup.evidence]
    citations = list(dict.fromkeys([*cited, *(c for f in ranked for c in f.citations)]))
    used.update(followups_asked=len(followups), rounds=len({f.depth for f in followups}),
                context_tokens=sum(count_tokens(line) for line in lines))
    return DriftResult("\n".join(lines), citations, "\n".join(draft_lines), followups, used=used)


# --- with an LLM ----------------------------------------------------------------------------------

def _primer(question: str, primer: list[CommunityReport], budget: DriftBudget, client: LLMClient,
            used: dict[str, Any]) -> tuple[str, list[int], list[FollowUp]]:
    texts = pack([f"[report {r.community_id}]\n{r.text()}" for r in primer], budget.primer_tokens)
    citable = {c for r in primer[: len(texts)] for c in r.citations}
    result = client.complete_many([LLMRequest(prompt.primer_messages(question, texts), prompt.PrimerReply,
                                              PRIMER_MAX_TOKENS, step="drift_primer")])[0]
    if not account(result, used, "primer"):
        raise result  # type: ignore[misc]  # without a primer there is nothing to follow up
    reply = result.value
    citations = keep_citable(reply.citations, citable, used)
    return reply.answer.strip(), citations, [FollowUp(q.question.strip(), q.score, 1) for q in reply.followups]


def _next_round(queue: list[FollowUp], asked: set[str], budget: DriftBudget) -> list[FollowUp]:
    """The best-scored questions not asked yet (case-insensitively), removed from the queue."""
    queue.sort(key=lambda f: -f.score)
    chosen: list[FollowUp] = []
    for followup in list(queue):
        if len(chosen) == budget.followups:
            break
        queue.remove(followup)
        if followup.question.casefold() not in asked and followup.score > 0:
            asked.add(followup.question.casefold())
            chosen.append(followup)
    return chosen


def _answer_round(question: str, round_: list[FollowUp], local: LocalSearch, budget: DriftBudget,
                  client: LLMClient, used: dict[str, Any]) -> list[FollowUp]:
    """Each follow-up's local-search chunks, then one answer call per follow-up (concurrently);
    returns the further questions they raised. A failed call leaves that follow-up unanswered."""
    requests = []
    for followup in round_:
        hits = _search(local, followup.question, used).retrieval.hits
        kept = pack([f"[chunk {h.chunk_id}]\n{h.text}" for h in hits], budget.followup_tokens)
        chunks = {h.chunk_id: h.text for h in hits[: len(kept)]}
        followup.evidence = [(c, text[:300]) for c, text in chunks.items()]
        requests.append(LLMRequest(prompt.followup_messages(question, followup.question, chunks),
                                   prompt.FollowUpReply, FOLLOWUP_MAX_TOKENS, step="drift_followup"))
    raised: list[FollowUp] = []
    for followup, result in zip(round_, client.complete_many(requests), strict=True):
        if account(result, used, "followup"):
            followup.answer = result.value.answer.strip()
            followup.citations = keep_citable(result.value.citations, {c for c, _ in followup.evidence}, used)
            raised += [FollowUp(q.question.strip(), q.score, followup.depth + 1) for q in result.value.followups]
    return raised


def _with_llm(question: str, primer: list[CommunityReport], local: LocalSearch, budget: DriftBudget,
              client: LLMClient, used: dict[str, Any]) -> DriftResult:
    draft, draft_citations, queue = _primer(question, primer, budget, client, used)
    asked: set[str] = set()
    followups: list[FollowUp] = []
    for _ in range(budget.depth):
        round_ = _next_round(queue, asked, budget)
        if not round_:
            break
        queue += _answer_round(question, round_, local, budget, client, used)
        followups += round_
        used["rounds"] = used.get("rounds", 0) + 1
    answered = sorted((f for f in followups if f.answer), key=lambda f: -f.score)
    lines = pack([f"[follow-up, usefulness {f.score}] {f.question}\n{f.answer}"
                         + (f" [chunks {', '.join(map(str, f.citations))}]" if f.citations else "")
                         for f in answered], budget.context_tokens - count_tokens(draft))
    used.update(followups_asked=len(followups),
                context_tokens=count_tokens(draft) + sum(count_tokens(t) for t in lines))
    allowed = set(draft_citations) | {c for f in answered[: len(lines)] for c in f.citations}
    mode, errors = f"llm:{client.model}", used.pop("errors", [])
    draft_text = draft + (f" [chunks {', '.join(map(str, draft_citations))}]" if draft_citations else "")
    result = client.complete_many([LLMRequest(prompt.final_messages(question, draft_text, lines), prompt.FinalReply,
                                              FINAL_MAX_TOKENS, step="drift_final")])[0]
    if not account(result, used, "final"):
        errors += used.pop("errors", [])
        if not answered:  # past the primer the model was never heard from: an error, not a draft as an answer
            raise LLMError(f"DRIFT: the primer was answered, then every follow-up call and the final call to the "
                           f"LLM failed; the last: {errors[-1] if errors else 'unknown'}")
        text = "The final answer could not be written (LLM error); the draft and follow-ups:\n" + \
            "\n".join([draft_text, *lines])
        return DriftResult(text, sorted(allowed), draft, followups, mode, used, errors)
    citations = keep_citable(result.value.citations, allowed, used)
    return DriftResult(result.value.answer.strip(), citations, draft, followups, mode, used, errors)

