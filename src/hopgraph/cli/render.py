"""How results read in a terminal: ranked hits with how each was found, and answers with citations."""

from __future__ import annotations

from collections.abc import Sequence

from hopgraph.ingest.pipeline import IndexReport
from hopgraph.query.ask import Asked
from hopgraph.records.documents import Skip
from hopgraph.records.retrieval import Hit, Retrieval


def render_retrieval(retrieval: Retrieval, width: int = 160) -> str:
    lines = []
    for rank, hit in enumerate(retrieval.hits, start=1):
        snippet = " ".join(hit.text.split())
        snippet = snippet if len(snippet) <= width else snippet[: width - 1] + "…"
        lines += [f"{rank}. {hit.title}{_where(hit)}  [{hit.describe_path()}]  score {hit.score:.4f}",
                  f"   {snippet}"]
    trace = ", ".join(f"{s.stage} {s.ms:.1f}" for s in retrieval.trace)
    lines.append(f"{retrieval.method}: {len(retrieval.hits)} hits in {retrieval.ms:.1f} ms ({trace} ms)")
    return "\n".join(lines)


def _where(hit: Hit) -> str:
    """` (report.pdf#p3)` for a chunk of a file; nothing for a record, whose title already says it."""
    return f"  ({hit.source})" if hit.source and not hit.source.startswith(f"{hit.title}#") else ""


def _cited(chunk_id: int, sources: dict[int, str]) -> str:
    return f"{sources[chunk_id]} (chunk {chunk_id})" if chunk_id in sources else f"chunk {chunk_id}"


def render_skips(skipped: Sequence[Skip]) -> list[str]:
    """One line per file an index run could not read: the file, then why."""
    return [f"hopgraph: skipped {skip.path}: {skip.reason}" for skip in skipped]


def render_asked(asked: Asked) -> str:
    lines = [f"mode: {asked.mode} ({asked.why})"]
    answer = [f"Answer ({asked.answer_mode}):\n{asked.answer}",
              f"Citations: {', '.join(_cited(c, asked.sources) for c in asked.citations) or 'none'}"]
    if asked.answer and asked.mode == "search":  # the answer first, then the hits it came from
        lines += [*answer, ""]
    if asked.retrieval is not None and asked.retrieval.hits:
        lines.append(render_retrieval(asked.retrieval))
    if asked.note:
        lines.append(f"note: {asked.note}")
    if asked.answer and asked.mode != "search":
        lines += ["", *answer]
    if asked.used:
        lines.append("used: " + ", ".join(f"{k} {v}" for k, v in asked.used.items() if not isinstance(v, list | dict)))
    return "\n".join(lines)


def describe_names(report: IndexReport) -> str:
    """Where the index run's names came from, per document: the index report says so."""
    if report.names_from == "titles":
        return f"names from titles: the titles of all {report.titles_as_names} documents (no text read)"
    read = f"{report.paragraphs_read} new paragraphs read in {report.seconds.get('read_names', 0.0):.1f} s"
    titles = (f"; titles of {report.titles_as_names} of {report.documents} documents are names too "
              f"(a heading, metadata, an HTML title, or a record title its text mentions; never a file stem)")
    return f"names from {report.names_from}: every chunk's text ({read}){titles if report.names_from != 'text' else ''}"
