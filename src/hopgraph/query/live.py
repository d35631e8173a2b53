"""Live extraction: before a `local` or `paths` question is walked, the chunks among its top hybrid
hits that the LLM has not read yet are extracted — at most `live_extract_chunks` of them — so the
answer works at once for a document indexed since the last backfill.

The facts take the write path of `extract`: committed a batch per transaction (a chunk whose reply
failed gets none and is recorded as a failure), then the graph rebuilt from every stored fact. They
stay: the next question, and the next backfill, find those chunks read.

It runs only when an LLM is configured *and* the store already holds that model's extraction: it
keeps an LLM graph current between backfills, and does not turn a graph of imported triples or of
the no-LLM extractors into an LLM one, question by question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hopgraph.errors import HopgraphError
from hopgraph.kg.extractors.llm import extract_chunks, extractor_id
from hopgraph.query.context import QueryContext
from hopgraph.records.retrieval import Hit


@dataclass
class LiveExtraction:
    chunks: int = 0  # extracted live: their facts are stored and in the graph
    failed: int = 0  # asked, no valid reply: read again by the next question or backfill
    left: int = 0  # unread top-hit chunks beyond the bound: the next backfill reads them
    problem: str = ""  # why nothing could be stored (another writer holds the store), if so

    def note(self) -> str:
        if self.problem:
            return f"live extraction skipped ({self.problem})"
        said = [f"extracted {self.chunks} chunk(s) live"] if self.chunks or self.failed else []
        said += [f"{self.failed} failed"] if self.failed else []
        said += [f"{self.left} more wait for the backfill"] if self.left else []
        return ", ".join(said)


def extract_live(ctx: QueryContext, top_hits: Callable[[], Sequence[Hit]]) -> LiveExtraction:
    """Extract the unread chunks among the question's top hybrid hits (best first, within the
    bound), store their facts and rebuild the graph; nothing when live extraction does not apply.
    `top_hits` is asked only when it does: the walk that follows shares that search."""
    limit = ctx.settings.live_extract_chunks
    if limit <= 0 or ctx.llm is None:
        return LiveExtraction()
    extractor = extractor_id(ctx.llm.model)
    if extractor not in ctx.store.extractors():
        return LiveExtraction()
    unread = ctx.store.unextracted(extractor, [hit.chunk_id for hit in top_hits()])
    if not unread:
        return LiveExtraction()
    try:
        report = extract_chunks(ctx.store, ctx.llm, ctx.vocabulary(), unread[:limit], ctx.settings.gleanings)
        if report.extracted:
            ctx.rebuild_graph()
    except HopgraphError as err:  # the store is locked by a writer: the graph as it is answers
        return LiveExtraction(left=len(unread), problem=str(err))
    return LiveExtraction(report.extracted, len(report.failed), max(0, len(unread) - limit))
