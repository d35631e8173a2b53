"""A living index on the 2Wiki pool: index half, add the other half, and compare with one run over all.

    PYTHONPATH=src .venv/bin/python bench/living.py [--data ../shared/data/2wikimultihopqa/2wiki_dev_500.json]
                                                   [--seed STORE] [--out bench/results/living.json]

Three stores of the same 3,301 paragraphs: (a) the first half indexed, then the whole pool indexed
again (the first half unchanged, the second half new); (b) the whole pool in one run; (c) the whole
pool, then a tenth of the documents removed, against (d) a fresh index of the other 90 %. Each pair
is compared row for row without ids (tests/support/store_state.py: documents, chunks, names, links,
abouts). `--seed` copies the embeddings and paragraph readings of a kept SQLite store (bench/
untitled.py's `2wiki_titled.db`) into each new store, so the times are those of the index's own work
(names, aboutness from the cached readings, links, the write) — without it every store embeds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from store_state import store_state

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.questions import load_questions, pooled_corpus
from hopgraph.store import open_store


def seeded(path: Path, seed: Path | None) -> str:
    """A new store holding only the seed's vectors and readings (caches keyed by text hash)."""
    if seed:
        shutil.copy(seed, path)
        store = open_store(str(path))
        for table in ("links", "mentions", "abouts", "names", "chunks", "documents", "runs", "meta"):
            store._db.execute(f"DELETE FROM {table}")
        store.close()
    return str(path)


def timed_index(path: str, docs: list, quiet: bool = True) -> tuple[float, HopGraph]:
    hg = HopGraph(path, Settings(), quiet=quiet)
    started = time.perf_counter()
    hg.index_documents(docs)
    return time.perf_counter() - started, hg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/2wikimultihopqa/2wiki_dev_500.json"))
    parser.add_argument("--seed", type=Path)
    parser.add_argument("--out", type=Path, default=Path("bench/results/living.json"))
    args = parser.parse_args()
    _, records, _ = load_questions(args.data)
    docs = pooled_corpus(records, f"eval:{args.data.name}")
    half, removed = len(docs) // 2, set(range(0, len(docs), 10))
    kept = [d for i, d in enumerate(docs) if i not in removed]
    result: dict = {"paragraphs": len(docs)}
    with tempfile.TemporaryDirectory(prefix="hopgraph-living-") as work:
        root = Path(work)
        first_s, first = timed_index(seeded(root / "a.db", args.seed), docs[:half])
        first.close()
        second_s, incremental = timed_index(str(root / "a.db"), docs)
        a = store_state(incremental.store)
        incremental.close()
        whole_s, whole = timed_index(seeded(root / "b.db", args.seed), docs)
        b = store_state(whole.store)
        result["incremental"] = {"first_half_s": round(first_s, 2), "second_half_s": round(second_s, 2),
                                 "whole_in_one_run_s": round(whole_s, 2), "equal": a == b,
                                 "links": len(b["links"]), "names": len(b["names"])}
        ids = [str(d.id) for d in whole.store.active_documents().values()
               if d.title in {docs[i].title for i in removed}]
        started = time.perf_counter()
        whole.remove(ids)
        remove_s = time.perf_counter() - started
        after = store_state(whole.store)
        whole.close()
        kept_s, fresh = timed_index(seeded(root / "d.db", args.seed), kept)
        result["removal"] = {"removed": len(ids), "remove_s": round(remove_s, 2),
                             "fresh_90_percent_s": round(kept_s, 2), "equal": after == store_state(fresh.store),
                             "links": len(after["links"])}
        fresh.close()
    print(json.dumps(result, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
