"""The vector index in PostgreSQL: IVFFlat lists × probes against HNSW breadths, recall@10 and time.

Over a schema bench/scale.py (`--postgres`) or bench/replicas.py wrote. Query vectors are stored
chunks' vectors plus noise (cos ≈ 0.8, as bench/scale_postgres.py); the truth is the exact scan of
the same vectors in SQL. Each candidate index is built inside a transaction that is rolled back, so
the store keeps its own index; the last row is what the store serves (`nearest_chunks` through its
own index, store/postgres/vector_index.py). Every query asks for the served depth (100 rows) and
keeps the first 10. Prints a table and writes JSON.

Usage: python bench/pg_vector_index.py --url 'postgresql://…?options=-csearch_path%3D…'
       [--lists 316 632 1000] [--probes 8 16 25 32] [--hnsw-ef 400] [--queries 100] [--json PATH]
   or: python bench/pg_vector_index.py --chunks 1000000 --pg-dir DIR [...]   (bench/scale.py's corpus
       written first to a fresh schema of a pgserver kept in DIR, which later commands can reuse:
       its URL is DIR/url.txt)
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
import uuid
from pathlib import Path

import numpy as np

from hopgraph.retrieval.vector_search import MIN_CANDIDATES
from hopgraph.store import open_store
from hopgraph.store.postgres import vector_index


def synthetic_store(chunks: int, pg_dir: Path) -> str:
    """bench/scale.py's corpus of `chunks` chunks written by its writer to a fresh schema; the URL."""
    import pgserver
    import psycopg

    sys.path.insert(0, str(Path(__file__).parent))
    import scale

    base = pgserver.get_server(pg_dir / "pg", cleanup_mode=None).get_uri()  # kept for later commands
    schema = f"scale_{chunks}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(base, autocommit=True) as db:
        db.execute(f"CREATE SCHEMA {schema}")
    url = f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    (pg_dir / "url.txt").write_text(url)
    print(json.dumps({"chunks": chunks, "url": url, **scale.build_store(url, scale.Corpus(chunks))}), flush=True)
    return url


class Rollback(Exception):
    """Raised to undo a candidate index."""


def query_vectors(store, model: str, queries: int) -> np.ndarray:
    hashes = [h for (h,) in store._db.execute(
        "SELECT text_hash FROM chunks ORDER BY md5(id::text) LIMIT ?", (queries,)).fetchall()]
    rng = np.random.default_rng(7)
    probes = np.stack(list(store.cached_vectors(hashes, model).values())).astype(np.float32)
    probes += 0.04 * rng.standard_normal(probes.shape, dtype=np.float32)
    return probes / np.linalg.norm(probes, axis=1, keepdims=True)


def scored(times: list[float], kept: list[float], **row: object) -> dict:
    times = sorted(times)
    row |= {"recall_at_10": round(float(np.mean(kept)), 3), "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}
    print("  ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    return row


def sweep(store, model: str, vectors: np.ndarray, truth: list[set[int]], index: str, settings: list[str]) -> list[dict]:
    """Build `index` (a CREATE INDEX statement) in place of the model's own, and measure each setting."""
    conn, dims = store._db.connection, vectors.shape[1]
    literal = "'" + model.replace("'", "''") + "'"
    query = (f"SELECT c.id FROM vectors v JOIN chunks c ON c.text_hash = v.text_hash WHERE v.model = {literal} "
             f"ORDER BY v.vector::vector({dims}) <=> %(q)s::vector({dims}) LIMIT {MIN_CANDIDATES}")
    rows = []
    try:
        with conn.transaction():
            for name in vector_index.built_lists(store._db, model):
                conn.execute(f"DROP INDEX {name}")
            conn.execute(f"SET LOCAL maintenance_work_mem = '{vector_index.BUILD_MEMORY}'")
            started = time.perf_counter()
            conn.execute(index.format(dims=dims, model=literal))
            build_s = round(time.perf_counter() - started, 1)
            size = conn.execute("SELECT pg_relation_size('bench_vector_index')").fetchone()[0]
            for setting in settings:
                times, kept = [], []
                for vector, want in zip(vectors, truth, strict=True):
                    with conn.transaction():
                        conn.execute(setting)
                        started = time.perf_counter()
                        found = [r[0] for r in conn.execute(query, {"q": vector}).fetchall()]
                        times.append((time.perf_counter() - started) * 1000)
                    kept.append(len(want & set(found[:10])) / 10)
                kind = index.split(" USING ")[1].split(" ")[0]
                built_with = re.search(r"WITH \((.*?)\)", index).group(1)
                rows.append(scored(times, kept, index=f"{kind} {built_with}",
                                   build_s=build_s, index_mb=round(size / 2**20, 1), setting=setting))
            raise Rollback
    except Rollback:
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url")
    parser.add_argument("--chunks", type=int, help="write bench/scale.py's corpus of this size first")
    parser.add_argument("--pg-dir", type=Path, default=Path("/tmp/hopgraph-pg-vector-index"))
    parser.add_argument("--lists", type=int, nargs="*", default=[])
    parser.add_argument("--probes", type=int, nargs="*", default=[8, 16, 32])
    parser.add_argument("--hnsw-ef", type=int, nargs="*", default=[])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--json", default="bench/results/pg_vector_index.json")
    args = parser.parse_args()
    if not args.url and not args.chunks:
        parser.error("give --url (an existing store) or --chunks N (a synthetic one)")
    if args.chunks:
        args.pg_dir.mkdir(parents=True, exist_ok=True)
        args.url = synthetic_store(args.chunks, args.pg_dir)
    store = open_store(args.url, create=False)
    model = store.meta()["embedder"]
    vectors = query_vectors(store, model, args.queries)
    truth = [{c for c, _ in store.nearest_chunks(v, model, 10, exact=True)} for v in vectors]
    rows = []
    if args.hnsw_ef:
        rows += sweep(store, model, vectors, truth,
                      "CREATE INDEX bench_vector_index ON vectors USING hnsw ((vector::vector({dims})) "
                      "vector_cosine_ops) WITH (m = 16, ef_construction = 64) WHERE model = {model}",
                      [f"SET LOCAL hnsw.ef_search = {ef}" for ef in args.hnsw_ef])
    for lists in args.lists:
        rows += sweep(store, model, vectors, truth,
                      "CREATE INDEX bench_vector_index ON vectors USING ivfflat ((vector::vector({dims})) "
                      f"vector_cosine_ops) WITH (lists = {lists}) WHERE model = {{model}}",
                      [f"SET LOCAL ivfflat.probes = {p}" for p in args.probes])
    with store._transaction():
        vector_index.ensure(store._db, model)
    times, kept = [], []
    for vector, want in zip(vectors, truth, strict=True):
        started = time.perf_counter()
        found = store.nearest_chunks(vector, model, MIN_CANDIDATES, exact=False)
        times.append((time.perf_counter() - started) * 1000)
        kept.append(len(want & {c for c, _ in found[:10]}) / 10)
    served = scored(times, kept, index="served", built=vector_index.built_lists(store._db, model),
                    probes=vector_index.probes_now(store._db, model))
    chunks = store._db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    store.close()
    Path(args.json).write_text(json.dumps({"chunks": chunks, "queries": len(vectors), "rows": rows,
                                           "served": served}, indent=2))


if __name__ == "__main__":
    main()
