"""How results read in a terminal: ranked hits with how each was found, and answers with citations."""

from __future__ import annotations

from hopgraph.query.ask import Asked
from hopgraph.records.retrieval import Retrieval


def render_retrieval(retrieval: Retrieval, width: int = 160) -> str:
    lines = []
    for rank, hit in enumerate(retrieval.hits, start=1):
        snippet = " ".join(hit.text.split())
        snippet = snippet if len(snippet) <= width else snippet[: width - 1] + "…"
        lines += [f"{rank}. {hit.title}  [{hit.describe_path()}]  score {hit.score:.4f}", f"   {snippet}"]
    trace = ", ".join(f"{s.stage} {s.ms:.1f}" for s in retrieval.trace)
    lines.append(f"{retrieval.method}: {len(retrieval.hits)} hits in {retrieval.ms:.1f} ms ({trace} ms)")
    return "\n".join(lines)


def render_asked(asked: Asked) -> str:
    lines = [f"mode: {asked.mode} ({asked.why})"]
    if asked.retrieval is not None and asked.retrieval.hits:
        lines.append(render_retrieval(asked.retrieval))
    if asked.note:
        lines.append(f"note: {asked.note}")
    if asked.answer:
        lines.append(f"\nAnswer ({asked.answer_mode}):\n{asked.answer}")
        lines.append(f"Citations: {', '.join(f'chunk {c}' for c in asked.citations) or 'none'}")
    if asked.used:
        lines.append("used: " + ", ".join(f"{k} {v}" for k, v in asked.used.items() if not isinstance(v, list | dict)))
    return "\n".join(lines)
