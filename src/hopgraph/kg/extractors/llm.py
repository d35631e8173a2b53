"""LLM extraction over stored chunks: one call per chunk (+ gleaning rounds), validated, resumable.

Batches are committed as they finish, so an interrupted run resumes at the first unfinished chunk;
a chunk whose reply stays malformed after the client's retries is recorded as a failure and gets
no facts at all (never half a chunk). Out-of-vocabulary types and empty names are skipped and
counted, not fatal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from hopgraph.kg.facts import Vocabulary
from hopgraph.llm import LLMClient, LLMError, LLMRequest
from hopgraph.prompts import extraction, gleaning
from hopgraph.records.knowledge import ChunkFacts, ChunkText, ExtractionFailure, RawEntity, RawRelation
from hopgraph.store.base import KnowledgeStore

BATCH = 16  # chunks per committed batch: the most an interruption can cost
# Room for the longest reply the JSON schema allows a small model (20 entities and 20 relations,
# ~2,000 tokens): a repetition loop then ends at maxItems as valid JSON instead of being cut off.
MAX_TOKENS = 2400


@dataclass
class ExtractReport:
    chunks: int = 0
    extracted: int = 0
    failed: list[tuple[int, str]] = field(default_factory=list)
    skipped: int = 0
    withdrawn: int = 0  # chunks removed while they were being extracted: their results were dropped
    stopped: str = ""  # why the run stopped before its last chunk (the circuit breaker, the job deadline)
    entities: int = 0
    relations: int = 0
    usage: dict[str, Any] = field(default_factory=dict)  # step → the client's StepUsage


def to_facts(chunk_id: int, extractor: str, replies: Sequence[BaseModel], vocabulary: Vocabulary) -> ChunkFacts:
    """Validated replies → facts; what breaks the vocabulary or names nothing is skipped, with why."""
    facts = ChunkFacts(chunk_id, extractor)
    types: dict[str, str] = {}
    for reply in replies:
        for entity in reply.entities:  # type: ignore[attr-defined]
            name, type_ = entity.name.strip(), entity.type.strip().upper()
            if not name:
                facts.skipped.append("entity with an empty name")
            elif type_ not in vocabulary.entity_types:
                facts.skipped.append(f"entity {name!r}: unknown type {type_!r}")
            else:
                types.setdefault(name.casefold(), type_)
                facts.entities.append(RawEntity(name, type_, entity.description.strip()))
        for relation in reply.relations:  # type: ignore[attr-defined]
            problem = _relation_problem(relation, vocabulary, types)
            if problem:
                facts.skipped.append(problem)
                continue
            source, target = relation.source.strip(), relation.target.strip()
            facts.relations.append(RawRelation(source, relation.relation.strip().upper(), target,
                                               relation.description.strip(), types[source.casefold()],
                                               types[target.casefold()], relation.date or None))
    return facts


def _relation_problem(relation: Any, vocabulary: Vocabulary, types: dict[str, str]) -> str:
    label = f"{relation.source!r} {relation.relation} {relation.target!r}"
    if relation.relation.strip().upper() not in vocabulary.relation_types:
        return f"relation {label}: unknown relation type"
    if not relation.source.strip() or not relation.target.strip():
        return f"relation {label}: empty end"
    if relation.source.strip().casefold() not in types or relation.target.strip().casefold() not in types:
        return f"relation {label}: an end is not an extracted entity"
    return ""


def extractor_id(model: str) -> str:
    """The name this model's facts are stored under: a chunk with a row of it is extracted (even when
    the reply named nothing), one without is pending."""
    return f"llm:{model}"


def extract_pending(store: KnowledgeStore, client: LLMClient, vocabulary: Vocabulary, gleanings: int = 0,
                    progress: Callable[[int, int], None] | None = None,
                    deadline: float | None = None) -> ExtractReport:
    """Extract every chunk that has no facts from this model yet."""
    pending = store.pending_chunks(extractor_id(client.model))
    return extract_chunks(store, client, vocabulary, pending, gleanings, progress, deadline)


def extract_chunks(store: KnowledgeStore, client: LLMClient, vocabulary: Vocabulary, chunks: Sequence[ChunkText],
                   gleanings: int = 0, progress: Callable[[int, int], None] | None = None,
                   deadline: float | None = None) -> ExtractReport:
    """Extract these chunks, committing their facts (and failures) a batch at a time. The run stops
    early, keeping what it committed and saying why (`stopped`), when the client's circuit breaker
    opens or `deadline` seconds (the job's) have passed."""
    report = ExtractReport(chunks=len(chunks))
    ends = None if deadline is None else time.monotonic() + deadline
    with client.deadline(deadline) if deadline is not None else nullcontext():
        for start in range(0, len(chunks), BATCH):
            report.stopped = _stop_reason(client, ends, deadline)
            if report.stopped:
                break
            _extract_batch(store, client, vocabulary, chunks[start : start + BATCH], gleanings, report)
            if progress:
                progress(min(start + BATCH, len(chunks)), len(chunks))
    report.usage = client.usage
    return report


def nothing_extracted(report: ExtractReport) -> str:
    """The error of a run whose every chunk failed (a server that is down is an error, not a result)."""
    stopped = f"; it stopped early: {report.stopped}" if report.stopped else ""
    return (f"the LLM failed on all {len(report.failed)} chunks it was asked about, so nothing was extracted"
            f"{stopped}; the first: {report.failed[0][1]}")


def _stop_reason(client: LLMClient, ends: float | None, deadline: float | None) -> str:
    """Why no further batch is started ("" to go on). The deadline first: calls cut off by it also
    open the breaker."""
    if ends is not None and time.monotonic() > ends:
        return f"the job's deadline of {deadline:g} s passed (setting llm_job_deadline)"
    if client.circuit_open:
        return "the LLM's circuit breaker opened (the server refused, never answered, or failed calls in a row)"
    return ""


def _extract_batch(store: KnowledgeStore, client: LLMClient, vocabulary: Vocabulary, batch: Sequence[ChunkText],
                   gleanings: int, report: ExtractReport) -> None:
    """One batch: its replies, then its facts and failures committed together."""
    extractor = extractor_id(client.model)
    model = extraction.reply_model(vocabulary.entity_types, vocabulary.relation_types)
    firsts = [extraction.messages(c.text, vocabulary.entity_types, vocabulary.relation_types) for c in batch]
    replies = _rounds(client, firsts, model, gleanings)
    facts, failures = [], []
    for chunk_id, chunk_replies in zip((c.chunk_id for c in batch), replies, strict=True):
        if isinstance(chunk_replies, LLMError):
            failures.append(ExtractionFailure(chunk_id, str(chunk_replies)))
            report.failed.append((chunk_id, str(chunk_replies)))
        else:
            item = to_facts(chunk_id, extractor, chunk_replies, vocabulary)
            facts.append(item)
            report.skipped += len(item.skipped)
            report.entities += len(item.entities)
            report.relations += len(item.relations)
    withdrawn = store.save_facts(facts)
    if failures:
        store.record_failures(failures, extractor)
    report.withdrawn += len(withdrawn)
    report.extracted += len(facts) - len(withdrawn)


def _rounds(client: LLMClient, firsts: list[list[dict[str, Any]]], model: type[BaseModel],
            gleanings: int) -> list[list[BaseModel] | LLMError]:
    """The first extraction of each chunk, then up to `gleanings` follow-ups that add what was missed."""
    results = client.complete_many([LLMRequest(m, model, MAX_TOKENS, step="extract") for m in firsts])
    replies: list[list[BaseModel] | LLMError] = [r if isinstance(r, LLMError) else [r.value] for r in results]
    for _ in range(gleanings):
        live = [i for i, r in enumerate(replies) if not isinstance(r, LLMError)]
        requests = [LLMRequest(gleaning.messages(firsts[i], replies[i][-1]), model, MAX_TOKENS,  # type: ignore[index]
                               step="glean") for i in live]
        for i, result in zip(live, client.complete_many(requests), strict=True):
            # A failed gleaning round keeps what the chunk already has: gleaning is only extra recall.
            if not isinstance(result, LLMError):
                replies[i].append(result.value)  # type: ignore[union-attr]
    return replies
