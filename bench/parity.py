"""PostgreSQL against the embedded store: both-found and the same top 5 per question, and the time per query.

    .venv/bin/python bench/parity.py [--data-dir ../shared/data] [--pg URL] [--seed-dir DIR]
                                     [--sets hotpotqa,2wiki] [--out bench/results/parity.json]

For each shared pool (HotpotQA 200, 2Wiki 500, titled) the corpus is indexed into a fresh SQLite
file and a fresh PostgreSQL schema (a local server from the `pgserver` wheel unless `--pg` names
one). `--seed-dir` copies embeddings and paragraph readings from the SQLite stores bench/untitled.py
kept (`hotpotqa_titled.db`, `2wiki_titled.db`), so nothing is embedded twice; the index itself is
built anew in both. Then:

- `hybrid`, `hybrid+names+links`, `ppr`, `auto`: the embedded store (in process, over its
  snapshot) and the PostgreSQL store with retrieval served from the database (`search_in =
  "database"`, retrieval/database_index.py: pgvector and SQL keyword ranking, nothing local) answer
  every question; both-found at top 5 of each, the difference, and "same" (the questions whose top 5
  chunks, by text and title, in order, are equal), over the whole set and by held-out half (A/B,
  eval/halves.py: the halves of `hopgraph eval --half`);
- the reference lab's one-statement retrieval (store/postgres/search.py `vector_links`: 2 vector
  seeds by the HNSW index, then the chunks they link to, top 5) against the same rule in numpy
  over the exact vectors: a difference is the ANN's (HNSW recall);
- keyword search: how many of the embedded BM25's top 5 the SQL BM25 (store/postgres/keywords.py,
  over the same terms) also ranks top 5.

Times are per query, in this process, p50 and p95 in ms.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.halves import HALVES, half_of
from hopgraph.eval.questions import Question
from hopgraph.eval.retrieval import build_index, load_eval_set, score_retrieval
from hopgraph.store import open_store
from hopgraph.text.bm25 import keyword_terms

SETS = {"hotpotqa": ("hotpotqa/hotpotqa_200.json", "hotpotqa_titled.db"),
        "2wiki": ("2wikimultihopqa/2wiki_dev_500.json", "2wiki_titled.db")}
METHODS = ["hybrid", "hybrid+names+links", "ppr", "auto"]
TOP, SEEDS = 5, 2


def percentiles(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"p50": round(statistics.median(ordered), 2), "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2)}


def timed(call: Callable[[], Any], into: list[float]) -> Any:
    started = time.perf_counter()
    result = call()
    into.append((time.perf_counter() - started) * 1000)
    return result


def seed_from(sqlite_path: Path, url: str, model: str) -> int:
    """Copy cached embeddings and paragraph readings (by text hash) into the new store."""
    source, target = open_store(str(sqlite_path), create=False), open_store(url)
    vectors = dict(source._db.execute("SELECT text_hash, vector FROM vectors WHERE model = ?", (model,)))
    target.save_vectors({h: np.frombuffer(v, dtype=np.float32) for h, v in vectors.items()}, model)
    readings: dict[str, dict[str, str]] = {}
    for text_hash, reader, payload in source._db.execute("SELECT text_hash, reader, payload FROM readings"):
        readings.setdefault(reader, {})[text_hash] = payload
    for reader, rows in readings.items():
        target.save_readings(rows, reader)
    source.close()
    target.close()
    return len(vectors)


def top_of(hg: HopGraph, question: str, method: str) -> list[tuple[str, str]]:
    return [(h.title, h.text) for h in hg.search(question, method=method, top=TOP).hits]


def both_found(question: Question, top: list[tuple[str, str]]) -> float:
    return score_retrieval(question, [title for title, _ in top], [text for _, text in top])["both_found"]


def vector_links_numpy(hg: HopGraph, query: np.ndarray) -> list[int]:
    """bench twin of PostgresStore.vector_links over the exact in-memory vectors."""
    index = hg.search_index
    distance = 1 - index.vectors @ query / np.linalg.norm(query)
    seeds = [int(r) for r in np.lexsort((index.table.ids, distance))[:SEEDS]]
    targets = {int(t) for r in seeds for t in index.links[r].indices} - set(seeds)
    hops = sorted(targets, key=lambda r: (distance[r], index.table.ids[r]))
    return [int(index.table.ids[r]) for r in [*seeds, *hops][:TOP]]


def compare_methods(embedded: HopGraph, served: HopGraph, questions: list[Question]) -> dict[str, Any]:
    """Per method: both-found of the embedded store and of the database-served one, over the set and
    by half, questions alternating between the two (so both see the same machine load)."""
    assert served.search_index.origin == "database", served.search_index.origin  # nothing local
    out: dict[str, Any] = {}
    for method in METHODS:
        found: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        ms: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        same, differences = [], []
        for question in questions:
            a = timed(lambda q=question.text, m=method: top_of(embedded, q, m), ms["sqlite"])
            b = timed(lambda q=question.text, m=method: top_of(served, q, m), ms["postgres"])
            found["sqlite"].append(both_found(question, a))
            found["postgres"].append(both_found(question, b))
            same.append(a == b)
            if a != b:
                differences.append(question.text)
        row = summary(questions, found, same) | {"ms_sqlite": percentiles(ms["sqlite"]),
                                                 "ms_postgres": percentiles(ms["postgres"]),
                                                 "different": differences[:10]}
        row["halves"] = {}
        for half in HALVES:  # the question-id halves of `hopgraph eval --half`
            at = [i for i, q in enumerate(questions) if half_of(q.id) == half]
            row["halves"][half] = summary([questions[i] for i in at], {k: [v[i] for i in at] for k, v in found.items()},
                                          [same[i] for i in at])
        out[method] = row
    return out


def summary(questions: list[Question], found: dict[str, list[float]], same: list[bool]) -> dict[str, Any]:
    n = max(1, len(questions))
    embedded, served = sum(found["sqlite"]) / n, sum(found["postgres"]) / n
    return {"of": len(questions), "both_found_sqlite": round(embedded, 4), "both_found_postgres": round(served, 4),
            "difference": round(served - embedded, 4), "same": sum(same)}


def compare_sql(embedded: HopGraph, shared: HopGraph, questions: list[str]) -> dict[str, Any]:
    """The one-statement retrieval against numpy, and BM25 in SQL against bm25s."""
    model = shared.embedder.name
    same, ms_sql, ms_vector, ms_words, overlap, differences = 0, [], [], [], [], []
    for question in questions:
        query = shared.embedder.embed([question])[0]
        in_sql = timed(lambda q=query: shared.store.vector_links(q, model, SEEDS, TOP), ms_sql)
        in_numpy = vector_links_numpy(embedded, query)
        same += [chunk for chunk, _, _ in in_sql] == in_numpy
        if [chunk for chunk, _, _ in in_sql] != in_numpy:  # why: a seed the HNSW scan missed, or order
            differences.append({"question": question, "sql": [c for c, _, _ in in_sql], "numpy": in_numpy,
                                "seeds_differ": {c for c, step, _ in in_sql if step == 0} != set(in_numpy[:SEEDS])})
        timed(lambda q=query: shared.store.vector_links(q, model, TOP, TOP), ms_vector)
        scores = embedded.search_index.keyword.scores(question)
        bm25 = {embedded.search_index.table.texts[r] for r in np.argsort(-scores, kind="stable")[:TOP]
                if scores[r] > 0}
        words = timed(lambda q=question: shared.store.keyword_ranks(keyword_terms(q), TOP), ms_words)
        texts = shared.store.chunk_texts([chunk for chunk, _ in words])
        overlap.append(len(bm25 & set(texts.values())) / max(1, len(bm25)))
    return {"vector_links": {"same": same, "of": len(questions), "seeds": SEEDS, "top": TOP, "different": differences,
                             "ms_one_statement": percentiles(ms_sql), "ms_vector_only": percentiles(ms_vector)},
            "sql_bm25_vs_bm25s_top5_overlap": round(float(np.mean(overlap)), 3),
            "ms_sql_bm25": percentiles(ms_words)}


def run_set(name: str, data_dir: Path, base_url: str, seed_dir: Path | None, work: Path) -> dict[str, Any]:
    data, seed_file = SETS[name]
    settings = Settings()
    qa = load_eval_set(data_dir / data, None, None, str(work / f"{name}.db"), settings)
    url = schema_store(base_url, f"parity_{name}_{uuid.uuid4().hex[:6]}")
    embedded = HopGraph(qa.store, settings, quiet=True)
    if seed_dir and (seed_dir / seed_file).exists():
        shutil.copy(seed_dir / seed_file, qa.store)  # the embedded side starts from the kept store
        seeded = seed_from(seed_dir / seed_file, url, embedded.embedder.name)
    else:
        seeded = 0
    shared = HopGraph(url, replace(settings, search_in="database"), quiet=True)
    with embedded, shared:
        index = {"sqlite": build_index(embedded, qa.docs), "postgres": timed_index(shared, qa.docs)}
        started = time.perf_counter()
        loads = shared.search_index.load_seconds
        index["postgres"]["served_index_load_seconds"] = round(time.perf_counter() - started, 3)
        index["postgres"]["served_index_parts"] = {k: round(v, 3) for k, v in loads.items()}
        questions = [q.text for q in qa.questions]
        result = {"questions": len(questions), "paragraphs": len(qa.docs), "seeded_vectors": seeded,
                  "index": index, "methods": compare_methods(embedded, shared, qa.questions),
                  "in_database": compare_sql(embedded, shared, questions)}
    return result


def timed_index(hg: HopGraph, docs: list) -> dict[str, Any]:
    started = time.perf_counter()
    report = build_index(hg, docs)
    report["wall_seconds"] = round(time.perf_counter() - started, 2)
    return report


def schema_store(base_url: str, schema: str) -> str:
    import psycopg

    with psycopg.connect(base_url, autocommit=True) as db:
        db.execute(f"CREATE SCHEMA {schema}")
    joiner = "&" if "?" in base_url else "?"
    return f"{base_url}{joiner}options=-csearch_path%3D{schema}"


def local_server(root: Path) -> str:
    import pgserver

    return pgserver.get_server(root, cleanup_mode="stop").get_uri()


def print_table(results: dict[str, Any]) -> None:
    print(f"{'set':10} {'method':20} {'half':4} {'sqlite both':>11} {'pg both':>8} {'diff':>7} "
          f"{'same':>9} {'sqlite p50/p95':>16} {'pg p50/p95':>16}")
    for name, result in results.items():
        for method, row in result["methods"].items():
            for half, part in [("all", row), *row["halves"].items()]:
                times = (f"{row['ms_sqlite']['p50']:>7}/{row['ms_sqlite']['p95']:<7} "
                         f"{row['ms_postgres']['p50']:>7}/{row['ms_postgres']['p95']}") if half == "all" else ""
                print(f"{name:10} {method:20} {half:4} {part['both_found_sqlite']:>11} "
                      f"{part['both_found_postgres']:>8} {part['difference']:>+7.3f} {part['same']:>4} of "
                      f"{part['of']:<3} {times}")
        sql = result["in_database"]
        vl = sql["vector_links"]
        print(f"{name:10} {'one SQL statement':22} {vl['same']:>5} of {vl['of']:<4} "
              f"(vs numpy) {vl['ms_one_statement']['p50']} ms; vector only {vl['ms_vector_only']['p50']} ms")
        print(f"{name:10} {'SQL BM25 vs bm25s':22} top-5 overlap {sql['sql_bm25_vs_bm25s_top5_overlap']} "
              f"({sql['ms_sql_bm25']['p50']} / {sql['ms_sql_bm25']['p95']} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--pg", help="a PostgreSQL URL (default: a local pgserver in a temporary folder)")
    parser.add_argument("--seed-dir", type=Path, help="SQLite stores to copy embeddings and readings from")
    parser.add_argument("--sets", default="hotpotqa,2wiki")
    parser.add_argument("--out", type=Path, default=Path("bench/results/parity.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hopgraph-parity-", dir="/tmp") as work:
        base = args.pg or local_server(Path(work) / "pg")
        results = {name: run_set(name, args.data_dir, base, args.seed_dir, Path(work))
                   for name in args.sets.split(",")}
    print_table(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
