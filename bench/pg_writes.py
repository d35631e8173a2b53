"""A writer's cost on an existing PostgreSQL store: one new document indexed, then removed, N times.

Each index run and each removal rewrites the store's whole name graph in its transaction
(store/sql/documents.py `apply`); this times both, whole, from the writer's side, with names from
titles (a synthetic store has no paragraph readings to reuse; reading names from the text would run
spaCy over every chunk). Prints each run and the medians; writes JSON.

Usage: PYTHONPATH=src python bench/pg_writes.py --url 'postgresql://…' [--runs 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.records.documents import Document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, default=Path("bench/results/pg_writes.json"))
    args = parser.parse_args()
    index_s, remove_s = [], []
    with HopGraph(args.url, Settings(names_from="titles"), quiet=True, create=False) as hg:
        chunks = len(hg.store.chunk_table())
        for run in range(args.runs):
            doc = Document(f"Marrowgate cluster {run}", "The Marrowgate cluster builds engines for the "
                           "Quellbrook console, which Harlan Optics sells in Brevik.", "bench/pg_writes.py")
            started = time.perf_counter()
            hg.index_documents([doc], replace_sources=False)
            index_s.append(round(time.perf_counter() - started, 2))
            stored = hg.store.active_documents()[(doc.source, doc.title)]
            started = time.perf_counter()
            hg.remove([str(stored.id)])
            remove_s.append(round(time.perf_counter() - started, 2))
            print(f"run {run + 1}: index {index_s[-1]} s, remove {remove_s[-1]} s", flush=True)
    result = {"chunks": chunks, "index_s": index_s, "remove_s": remove_s,
              "index_p50_s": statistics.median(index_s), "remove_p50_s": statistics.median(remove_s)}
    print(json.dumps(result))
    args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
