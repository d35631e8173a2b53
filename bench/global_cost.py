"""What global questions cost: lazy global search (no reports) beside report-based global search.

    .venv/bin/python bench/global_cost.py [--out bench/results/global_cost.json]
    .venv/bin/python bench/global_cost.py --llm      # also lazy global with the real local model

On the bundled book (a fresh temporary store): indexing as plain vector RAG does it (chunks,
vectors, BM25), the no-LLM concept graph and its communities, which both modes share; then the
reports that only report-based search needs (extractive offline, and the estimate of what an LLM
would spend writing them). For three global questions, each mode's query cost: LLM calls, tokens,
milliseconds, and how many chunks and communities its answer cites. `--llm` runs lazy global with
Qwen2.5-Coder-1.5B served by xllamacpp (tests/support/local_model.py), uncached, at a small budget.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from hopgraph.communities.reports import estimate_report_tokens
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.query.lazy import LazyBudget, lazy_global_search

QUESTIONS = ["What are the main themes of this story?",
             "How does Scrooge change over the course of the story?",
             "What role do the spirits play in the story?"]
OUT = Path(__file__).resolve().parent / "results" / "global_cost.json"


def book() -> Path:
    return Path(str(resources.files("hopgraph.assets").joinpath("a_christmas_carol.txt")))


def timed(step: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = step()
    return value, round(time.perf_counter() - started, 2)


def build(hg: HopGraph) -> dict[str, Any]:
    """Indexing steps, timed; none calls an LLM. Reports are what only report-based search needs."""
    _, index_s = timed(lambda: hg.index([book()]))
    _, concepts_s = timed(hg.extract_concepts)
    tree, communities_s = timed(hg.communities)
    cost: dict[str, Any] = {"chunks": len(hg.search_index), "communities": len(tree), "levels": tree.levels,
                            "index_s": index_s, "concepts_s": concepts_s, "communities_s": communities_s}
    if hasattr(hg, "reports"):
        _, cost["extractive_reports_s"] = timed(hg.reports)
        cost["llm_reports_estimate"] = estimate_report_tokens(hg.knowledge_graph, tree, hg.chunk_texts,
                                                              hg.settings.report_tokens)
    return cost


def cited_communities(result: Any) -> int:
    """Distinct communities the cited chunks were found in (lazy: the community a chunk passed in)."""
    if hasattr(result, "retrieval"):
        found_in = {h.chunk_id: h.via.from_title for h in result.retrieval.hits if h.via}
        return len({found_in[c] for c in result.citations if c in found_in})
    return len({c for p in result.points if set(p.chunk_ids) & set(result.citations) for c in p.community_ids})


def query_row(mode: str, question: str, run: Any) -> dict[str, Any]:
    result, seconds = timed(run)
    used = result.used
    return {"mode": mode, "question": question, "llm_calls": used.get("llm_calls", 0),
            "tokens_in": used.get("tokens_in", 0), "tokens_out": used.get("tokens_out", 0),
            "ms": round(seconds * 1000), "citations": len(result.citations),
            "communities_cited": cited_communities(result), "relevance_tests": used.get("relevance_tests"),
            "answer": result.answer[:600],
            # lazy: where its time went (scoring, each level's tests, the answer)
            "stages_ms": {step.stage: round(step.ms) for step in result.retrieval.trace}
            if hasattr(result, "retrieval") else {}}


def offline_queries(hg: HopGraph) -> list[dict[str, Any]]:
    hg.lazy_global(QUESTIONS[0])  # warm-up: loads the search index and the embedder once, off the clock
    rows = []
    for question in QUESTIONS:
        rows.append(query_row("lazy (offline)", question, lambda q=question: hg.lazy_global(q)))
        if hasattr(hg, "global_search"):
            rows.append(query_row("reports (offline)", question, lambda q=question: hg.global_search(q)))
    return rows


def llm_query(hg: HopGraph, tests: int) -> dict[str, Any]:
    """Lazy global with the real local model, no cache: every call is sent and timed."""
    from hopgraph.llm import LLMClient
    from local_llm import LocalServer

    budget = LazyBudget(relevance_tests=tests, communities_per_level=4, chunks_per_community=2,
                        context_tokens=2000, top=6)  # 2,000 tokens of chunks fit the server's 4,096 context
    with LocalServer() as server, LLMClient(server.base_url, server.model_name, timeout=900,
                                            max_concurrency=1) as client:
        row = query_row(f"lazy (LLM: {server.model_name})", QUESTIONS[0], lambda: lazy_global_search(
            hg.search_index, hg.knowledge_graph, hg.communities(), QUESTIONS[0], budget, client))
        row["usage"] = {step: vars(usage) for step, usage in client.usage.items()}
    return row


def print_table(cost: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    shared = cost["index_s"] + cost["concepts_s"] + cost["communities_s"]
    print(f"\nindexing (both modes, 0 LLM calls): {shared:.1f} s = index {cost['index_s']} + concept graph "
          f"{cost['concepts_s']} + communities {cost['communities_s']} ({cost['chunks']} chunks, "
          f"{cost['communities']} communities, {cost['levels']} levels)")
    if "llm_reports_estimate" in cost:
        estimate = cost["llm_reports_estimate"]
        print(f"reports, only for report-based search: extractive {cost['extractive_reports_s']} s, 0 calls; "
              f"by LLM (estimate) {estimate['calls']} calls, {estimate['tokens_in']:,} tokens in, "
              f"{estimate['tokens_out']:,} out")
    print(f"\n{'mode':<44} {'question':<55} {'calls':>5} {'tok in':>7} {'tok out':>7} {'ms':>8} "
          f"{'cites':>5} {'comms':>5}")
    for r in rows:
        print(f"{r['mode']:<44} {r['question'][:55]:<55} {r['llm_calls']:>5} {r['tokens_in']:>7} "
              f"{r['tokens_out']:>7} {r['ms']:>8} {r['citations']:>5} {r['communities_cited']:>5}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--llm", action="store_true", help="also run lazy global with the local model")
    parser.add_argument("--relevance-tests", type=int, default=8, help="the LLM run's relevance-test budget")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, HopGraph(f"{tmp}/book.db", Settings()) as hg:
        cost = build(hg)
        rows = offline_queries(hg)
        if args.llm:
            rows.append(llm_query(hg, args.relevance_tests))
    print_table(cost, rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"indexing": cost, "queries": rows}, indent=2, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    print(f"\nwritten: {args.out}")


if __name__ == "__main__":
    main()
