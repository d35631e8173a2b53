"""The PostgreSQL column of bench/scale.py (`--postgres`): what only the database side has.

bench/scale.py builds the synthetic store through `open_store(URL)` exactly as for a file (one
schema per size on a local `pgserver` server unless `--pg` names one) and measures the in-process
search over its snapshot like the embedded store's. This adds, per size:
- the vector index build (pgvector IVFFlat, store/postgres/vector_index.py), timed by building it again;
- the schema's size on disk (tables + indexes) and the server's memory (PSS of its processes);
- vector search inside the database — `vector_links(q, model, 10, 10)`, its step-0 rows, through
  the vector index (its served probes) — p50/p95 and recall@10 against
  exact search over the same vectors;
- the reference lab's one statement (2 seeds + their links, top 5) and BM25 in SQL, p50/p95.
"""

from __future__ import annotations

import statistics
import time
import uuid
from pathlib import Path

import numpy as np

from hopgraph.retrieval.snapshot import load_search_index
from hopgraph.retrieval.stages import top_rows
from hopgraph.retrieval.vector_search import ExactSearch
from hopgraph.store import open_store
from hopgraph.store.postgres import vector_index


def local_server(root: Path) -> str:
    import pgserver

    return pgserver.get_server(root, cleanup_mode="stop").get_uri()


def fresh_schema(base_url: str, n: int) -> str:
    import psycopg

    schema = f"scale_{n}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(base_url, autocommit=True) as db:
        db.execute(f"CREATE SCHEMA {schema}")
    return f"{base_url}{'&' if '?' in base_url else '?'}options=-csearch_path%3D{schema}"


def _ms(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2)}


def server_memory_mb() -> float:
    """Proportional set size of every postgres process: shared buffers counted once."""
    import psutil

    total = 0
    for process in psutil.process_iter(["name"]):
        if process.info["name"] and process.info["name"].startswith("postgres"):
            try:
                total += process.memory_full_info().pss
            except (psutil.Error, AttributeError):
                continue
    return round(total / 2**20, 1)


def measure_postgres(url: str, model: str, queries: int) -> dict:
    from hopgraph.text.bm25 import keyword_terms  # here: bench/pg_keywords.py imports this module under older checkouts

    store = open_store(url, create=False)
    db = store._db
    row: dict = {"disk_mb": round(float(db.execute(
        "SELECT sum(pg_total_relation_size(format('%I.%I', table_schema, table_name)::regclass)) "
        "FROM information_schema.tables WHERE table_schema = current_schema()").fetchone()[0]) / 2**20, 1)}
    for name in vector_index.built_lists(db, model):
        db.execute(f"DROP INDEX IF EXISTS {name}")
    started = time.perf_counter()
    store.ensure_vector_index(model)
    row["vector_index_build_s"] = round(time.perf_counter() - started, 1)
    row["vector_index_mb"] = round(sum(db.execute("SELECT pg_relation_size(?::regclass)", (name,)).fetchone()[0]
                                       for name in vector_index.built_lists(db, model)) / 2**20, 1)
    index = load_search_index(store, _NoEmbedder(model), None)  # the snapshot bench/scale.py wrote
    rng = np.random.default_rng(7)
    rows = rng.choice(len(index), size=queries, replace=False)
    probes = np.asarray(index.vectors[np.sort(rows)], dtype=np.float32)
    probes = probes + 0.04 * rng.standard_normal(probes.shape, dtype=np.float32)
    probes /= np.linalg.norm(probes, axis=1, keepdims=True)
    exact = ExactSearch(index.vectors)
    found, truth, vector_ms, one_ms, words_ms = [], [], [], [], []
    for probe, row_of_question in zip(probes, np.sort(rows).tolist(), strict=True):
        truth.append({int(index.table.ids[r]) for r in top_rows(exact.scores(probe), 10)})
        started = time.perf_counter()
        hits = store.vector_links(probe, model, 10, 10)
        vector_ms.append((time.perf_counter() - started) * 1000)
        found.append({chunk for chunk, step, _ in hits if step == 0})
        started = time.perf_counter()
        store.vector_links(probe, model, 2, 5)
        one_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        store.keyword_ranks(keyword_terms(" ".join(index.table.texts[row_of_question].split()[:6])), 5)
        words_ms.append((time.perf_counter() - started) * 1000)
    row["vector_search"] = _ms(vector_ms) | {"recall_at_10": round(float(np.mean(
        [len(f & t) / 10 for f, t in zip(found, truth, strict=True)])), 4)}
    row["one_statement_links"] = _ms(one_ms)
    row["bm25_in_sql"] = _ms(words_ms)
    row["server_pss_mb"] = server_memory_mb()
    store.close()
    return row


class _NoEmbedder:
    """The snapshot is opened for its vectors only; nothing is embedded."""

    dim = 384

    def __init__(self, name: str) -> None:
        self.name = name

    def embed(self, texts, progress=None) -> np.ndarray:
        raise AssertionError("not used")

    def embed_query(self, text: str) -> np.ndarray:
        raise AssertionError("not used")
