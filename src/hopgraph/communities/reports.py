"""Community reports: what global search reads instead of the raw chunks.

Two writers share one record. Extractive (no model, the default): the community's central
entities by PageRank on its own subgraph, its heaviest relations, and as findings the sentences of
its chunks that mention the most central entities — each citing its chunk. LLM: one call per
community over its entities, relations and chunks packed into a token budget; bottom-up, so that a
community whose raw material would overflow the budget is written from its children's reports
instead (Microsoft GraphRAG's substitution). Replies are cached by the LLM client, and reports are
stored under the community's content hash, so an unchanged community is never written twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import igraph

from hopgraph.communities.leiden import relations_within
from hopgraph.llm import LLMClient, LLMError
from hopgraph.prompts import community_report as prompt
from hopgraph.records.communities import EXTRACTIVE, Community, CommunityReport, CommunityTree, Finding, cite
from hopgraph.records.knowledge import KnowledgeGraph, Relation
from hopgraph.text.sentences import split_sentences
from hopgraph.text.tokens import count_tokens, pack

ChunkTexts = Callable[[set[int]], dict[int, str]]


# --- shared: who matters inside a community ------------------------------------------------------

def internal_relations(graph: KnowledgeGraph, community: Community) -> list[Relation]:
    """The relations between the community's members, heaviest first."""
    return sorted(relations_within(graph, community.entities), key=lambda r: (-r.weight, r.id))


def central_entities(graph: KnowledgeGraph, community: Community, relations: Sequence[Relation]) -> list[int]:
    """Members by weighted PageRank on the community's own subgraph, most central first."""
    position = {entity_id: i for i, entity_id in enumerate(community.entities)}
    g = igraph.Graph(n=len(position), edges=[(position[r.source], position[r.target]) for r in relations])
    ranks = g.pagerank(weights=[r.weight for r in relations] or None, directed=False)
    return [community.entities[i] for i in sorted(range(len(ranks)), key=lambda i: (-ranks[i], i))]


def community_chunks(graph: KnowledgeGraph, community: Community) -> dict[int, int]:
    """chunk id → how many of the community's entities it mentions (more = more representative)."""
    counts: dict[int, int] = {}
    for entity_id in community.entities:
        for chunk_id in graph.entities[entity_id].chunks:
            counts[chunk_id] = counts.get(chunk_id, 0) + 1
    return counts


def representative_chunks(graph: KnowledgeGraph, community: Community, limit: int) -> list[int]:
    """The chunks that mention the most of the community's entities, most first (ties: lower id)."""
    counts = community_chunks(graph, community)
    return sorted(counts, key=lambda c: (-counts[c], c))[:limit]


def relation_line(graph: KnowledgeGraph, relation: Relation) -> str:
    source, target = graph.entities[relation.source].name, graph.entities[relation.target].name
    return f"{source} —{relation.relation}→ {target} ({len(relation.sources)} chunk(s))"


# --- extractive reports ----------------------------------------------------------------------------

def extractive_report(graph: KnowledgeGraph, community: Community, chunk_texts: dict[int, str],
                      rating: float, n_chunks: int, max_findings: int = 5) -> CommunityReport:
    """Findings come from `chunk_texts` (the community's most representative chunks); `n_chunks`
    is how many chunks mention the community in all."""
    relations = internal_relations(graph, community)
    central = central_entities(graph, community, relations)
    weight = {entity_id: 1.0 / (rank + 1) for rank, entity_id in enumerate(central[:20])}
    names = [(graph.entities[e].name.casefold(), w) for e, w in weight.items()]
    scored = []
    for chunk_id, text in chunk_texts.items():
        for sentence in split_sentences(text):
            if 40 <= len(sentence) <= 400:
                folded = sentence.casefold()
                score = sum(w for name, w in names if name in folded)
                if score > 0:
                    scored.append((-score, chunk_id, sentence))
    findings, used, said = [], set(), set()
    for _, chunk_id, sentence in sorted(scored):
        # One finding per chunk (breadth over one chunk's detail), and overlapping chunk windows
        # must not repeat a sentence.
        if chunk_id not in used and sentence not in said:
            used.add(chunk_id)
            said.add(sentence)
            findings.append(Finding(sentence, chunk_ids=[chunk_id]))
            if len(findings) == max_findings:
                break
    key = [graph.entities[e].name for e in central[:8]]
    title = ", ".join(key[:3]) + (" and others" if len(key) > 3 else "")
    summary = (f"{community.size} entities and {len(relations)} relations across {n_chunks} chunks, "
               f"centred on {', '.join(key[:5])}.")
    return CommunityReport(community.id, community.level, title, summary, rating, key,
                           [relation_line(graph, r) for r in relations[:10]], findings, EXTRACTIVE, community.hash)


def importance(chunk_counts: dict[int, int], all_counts: Sequence[int]) -> float:
    """0-10: how much of the collection a community covers, on a log scale relative to the largest
    community of its level (a rating a person can compare across communities of one level)."""
    largest = max(all_counts, default=1)
    return round(10 * math.log1p(len(chunk_counts)) / math.log1p(max(largest, 1)), 1)


def extractive_reports(graph: KnowledgeGraph, tree: CommunityTree, chunk_texts: ChunkTexts,
                       max_chunks: int = 12) -> list[CommunityReport]:
    """A report for every community, from at most `max_chunks` of its most representative chunks."""
    chunk_counts = {c.id: community_chunks(graph, c) for c in tree.communities}
    sizes_by_level: dict[int, list[int]] = {}
    for community in tree.communities:
        sizes_by_level.setdefault(community.level, []).append(len(chunk_counts[community.id]))
    reports = []
    for community in tree.communities:
        counts = chunk_counts[community.id]
        best = representative_chunks(graph, community, max_chunks)
        texts = chunk_texts(set(best))
        rating = importance(counts, sizes_by_level[community.level])
        reports.append(extractive_report(graph, community, {c: texts[c] for c in best if c in texts}, rating,
                                         len(counts)))
    return reports


# --- LLM reports -------------------------------------------------------------------------------------

@dataclass
class ReportRun:
    reports: list[CommunityReport]
    failed: list[tuple[int, str]] = field(default_factory=list)  # (community id, error)
    from_children: int = 0  # written from sub-community reports (raw material overflowed)
    dropped_citations: int = 0  # chunk ids the model cited that were not in its material
    reused: int = 0  # reports found again by their community's content hash (communities/refresh.py)
    dropped: int = 0  # stored reports of communities that no longer exist (deleted from the store)


def material(graph: KnowledgeGraph, community: Community, chunk_texts: ChunkTexts, budget_tokens: int,
             child_reports: Sequence[CommunityReport] = ()) -> tuple[str, set[int], bool]:
    """The text the model reads, the chunk ids it may cite, and whether children's reports stood in."""
    relations = internal_relations(graph, community)
    central = central_entities(graph, community, relations)
    parts = ["Entities:"] + [f"- {graph.entities[e].name} ({graph.entities[e].type}) "
                             f"{graph.entities[e].description}".rstrip() for e in central[:40]]
    parts += ["Relations:"] + [f"- {relation_line(graph, r)} {cite([s.chunk_id for s in r.sources][:5])}"
                               for r in relations[:60]]
    counts = community_chunks(graph, community)
    raw_tokens = count_tokens("\n".join(parts)) + sum(count_tokens(t) for t in chunk_texts(set(counts)).values())
    if raw_tokens > budget_tokens and child_reports:
        return "\n\n".join(pack([r.text() for r in sorted(child_reports, key=lambda r: -r.rating)], budget_tokens)), \
            {c for r in child_reports for c in r.citations}, True
    citable: set[int] = set()
    texts = chunk_texts(set(sorted(counts, key=lambda c: (-counts[c], c))[:50]))
    chunk_parts = []
    for chunk_id in sorted(texts, key=lambda c: (-counts[c], c)):
        chunk_parts.append(f"[chunk {chunk_id}]\n{texts[chunk_id]}")
        citable.add(chunk_id)
    return "\n\n".join(pack(["\n".join(parts), "Chunks:", *chunk_parts], budget_tokens)), citable, False


def llm_reports(graph: KnowledgeGraph, tree: CommunityTree, client: LLMClient, chunk_texts: ChunkTexts,
                budget_tokens: int = 6000, stored: dict[str, CommunityReport] | None = None,
                progress: Callable[[int, int], None] | None = None) -> ReportRun:
    """Bottom-up: deepest level first, so a parent can be written from its children's reports."""
    stored = stored or {}
    run = ReportRun([])
    by_id: dict[int, CommunityReport] = {}
    order = sorted(tree.communities, key=lambda c: (-c.level, c.id))
    for done, community in enumerate(order, start=1):
        if community.hash in stored:
            by_id[community.id] = _renumbered(stored[community.hash], community)
        else:
            report = _llm_report(graph, community, client, chunk_texts, budget_tokens,
                                 [by_id[c] for c in community.children if c in by_id], run)
            if report is not None:
                by_id[community.id] = report
        if progress:
            progress(done, len(order))
    run.reports = [by_id[c.id] for c in tree.communities if c.id in by_id]
    return run


def _llm_report(graph: KnowledgeGraph, community: Community, client: LLMClient, chunk_texts: ChunkTexts,
                budget_tokens: int, children: list[CommunityReport], run: ReportRun) -> CommunityReport | None:
    text, citable, from_children = material(graph, community, chunk_texts, budget_tokens, children)
    try:
        reply = client.complete_json(prompt.messages(text), prompt.CommunityReportReply, max_tokens=1500,
                                     step="community_report").value
    except LLMError as err:  # one community fails, the rest of the run goes on; it is listed
        run.failed.append((community.id, str(err)))
        return None
    run.from_children += from_children
    findings = []
    for finding in reply.findings:
        kept = [c for c in finding.chunk_ids if c in citable]
        run.dropped_citations += len(finding.chunk_ids) - len(kept)
        findings.append(Finding(finding.summary, finding.explanation, kept))
    relations = internal_relations(graph, community)
    central = central_entities(graph, community, relations)
    return CommunityReport(community.id, community.level, reply.title, reply.summary, reply.rating,
                           [graph.entities[e].name for e in central[:8]],
                           [relation_line(graph, r) for r in relations[:10]], findings, client.model, community.hash)


def _renumbered(report: CommunityReport, community: Community) -> CommunityReport:
    """A stored report belongs to a hash; community ids change with every rebuild."""
    return CommunityReport(community.id, community.level, report.title, report.summary, report.rating,
                           report.entities, report.relations, report.findings, report.model, report.hash,
                           report.labels)


def estimate_report_tokens(graph: KnowledgeGraph, tree: CommunityTree, chunk_texts: ChunkTexts,
                           budget_tokens: int = 6000, output_tokens: int = 700) -> dict[str, int]:
    """Calls and tokens that `llm_reports` would spend, before anything is spent."""
    tokens_in = 0
    for community in tree.communities:
        text, _, _ = material(graph, community, chunk_texts, budget_tokens)
        tokens_in += count_tokens(prompt.SYSTEM) + count_tokens(text)
    calls = len(tree.communities)
    return {"calls": calls, "tokens_in": tokens_in, "tokens_out": calls * output_tokens}
