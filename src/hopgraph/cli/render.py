"""How results read in a terminal: ranked hits with how each was found, and answers with citations."""

from __future__ import annotations

from collections.abc import Sequence

from hopgraph.ingest.pipeline import IndexReport
from hopgraph.records.answers import Answer, Step
from hopgraph.records.documents import Skip
from hopgraph.records.retrieval import Hit, Retrieval
from hopgraph.text.sentences import prose_sentences


def render_retrieval(retrieval: Retrieval, width: int = 160) -> str:
    lines = []
    for rank, hit in enumerate(retrieval.hits, start=1):
        snippet = _preview(hit.text, width)
        snippet = snippet if len(snippet) <= width else snippet[: width - 1] + "…"
        lines += [f"{rank}. {hit.title}{_where(hit)}  [{hit.describe_path()}]  score {hit.score:.4f}{_stage(hit)}",
                  f"   {snippet}"]
    trace = ", ".join(f"{s.stage} {s.ms:.1f}" for s in retrieval.trace)
    lines.append(f"{retrieval.method}: {len(retrieval.hits)} hits in {retrieval.ms:.1f} ms ({trace} ms)")
    return "\n".join(lines)


def _preview(text: str, width: int) -> str:
    """The chunk's prose on one line: its heading lines ("# Company Profile: …") are left out, as
    the title above says them; a chunk of headings alone is shown as it is."""
    head = text[:width * 4]  # enough to fill the line; the sentence splitter need not read a whole chunk
    return " ".join(prose_sentences(head)) or " ".join(head.split())


def _stage(hit: Hit) -> str:
    """The placing stage's own number beside the rank score (1/rank), e.g. a link's weight."""
    return "" if hit.stage_score is None else f" ({hit.found_by} {hit.stage_score:.4f})"


def _where(hit: Hit) -> str:
    """` (report.pdf#p3)` for a chunk of a file; nothing for a record, whose title already says it."""
    return f"  ({hit.source})" if hit.source and not hit.source.startswith(f"{hit.title}#") else ""


def _cited(chunk_id: int, sources: dict[int, str]) -> str:
    return f"{sources[chunk_id]} (chunk {chunk_id})" if chunk_id in sources else f"chunk {chunk_id}"


def render_skips(skipped: Sequence[Skip]) -> list[str]:
    """One line per file an index run could not read: the file, then why."""
    return [f"hopgraph: skipped {skip.path}: {skip.reason}" for skip in skipped]


def render_asked(asked: Answer, streamed: str | None = None) -> str:
    """The mode and why; for search and iterative the answer first, then what it came from (the
    iterative steps, the hits), a note; for graph modes the evidence first, the answer after. After
    a `streamed` answer (printed as the LLM wrote it, with the mode above it) the rest: the answer
    again only when the checks changed it (a refusal, an empty reply), then its citations."""
    lines = [f"mode: {asked.mode} ({asked.why})"] if streamed is None else []
    whole = [] if streamed is not None and streamed.strip() == asked.text.strip() else \
        [f"Answer ({asked.writer}):\n{asked.text}"]
    answer = [*_short(asked), *whole,
              f"Citations: {', '.join(_cited(c, asked.sources) for c in asked.citations) or 'none'}"]
    answer_first = asked.mode in ("search", "iterative")
    if asked.text and answer_first:
        lines += [*answer, ""]
    lines += [render_step(number, step) for number, step in enumerate(asked.steps, start=1)]
    if asked.hits:
        lines.append(render_retrieval(asked.retrieval))  # type: ignore[arg-type]  # hits imply a retrieval
    if asked.note:
        lines.append(f"note: {asked.note}")
    if asked.text and not answer_first:
        lines += ["", *answer]
    if asked.details:
        lines.append("used: " + ", ".join(f"{k} {v}" for k, v in asked.details.items()
                                          if not isinstance(v, list | dict)))
    if asked.used.llm_calls:
        spent = asked.used
        lines.append(f"LLM: {spent.llm_calls} calls ({spent.cached_calls} cached), {spent.tokens_in} tokens in, "
                     f"{spent.tokens_out} out, {spent.seconds.get('total', 0.0):.1f} s")
    return "\n".join(lines)


def _short(asked: Answer) -> list[str]:
    """Search without an LLM: the short answer, its sentence and citation, first — or that none
    was good enough (the evidence below still shows)."""
    if asked.writer != "extractive" or asked.mode != "search":
        return []
    short = asked.short
    if short is None:
        return ["Answer: no short answer found (the evidence below may still hold it)", ""]
    cited = _cited(short.chunk_id, asked.sources) if short.chunk_id is not None else "no citation"
    sentence = " ".join(short.sentence.split())
    return [f"Answer: {short.text}", f'  "{sentence}" [{cited}]', ""]


def render_step(number: int, step: Step) -> str:
    """`step 1: searched "…" (+4 chunks) — knows …; next: "…"` (or the answer it reached)."""
    then = f'answered "{step.answer}"' if step.answer else (f'next: "{step.next_search}"' if step.next_search
                                                           else "nothing more to search")
    return f'step {number}: searched "{step.search}" (+{len(step.added)} chunks) — {step.known or "…"}; {then}'


def describe_names(report: IndexReport) -> str:
    """Where the index run's names came from, per document: the index report says so."""
    if report.names_from == "titles":
        return f"names from titles: the titles of all {report.titles_as_names} documents (no text read)"
    read = f"{report.paragraphs_read} new paragraphs read in {report.seconds.get('read_names', 0.0):.1f} s"
    # Names are built over every document of the index, not only those this run read: count those.
    titles = (f"; titles of {report.titles_as_names} of the {report.documents_indexed} documents in the index are "
              "names too (a heading, metadata, an HTML title, or a record title its text mentions; never a file stem)")
    return f"names from {report.names_from}: every chunk's text ({read}){titles if report.names_from != 'text' else ''}"
