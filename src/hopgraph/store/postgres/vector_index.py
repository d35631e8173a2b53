"""The vector index of each embedding model: pgvector's IVFFlat, sized by the rows it is built over.

Why IVFFlat and not HNSW: it is the in-process search's algorithm (retrieval/vector_search.py, faiss
IVF), and it holds recall as the store grows where pgvector's HNSW did not. On bench/scale.py's
100k chunks (`bench/pg_vector_index.py`, docs/BENCHMARKS.md) HNSW (m 16, ef_construction 64) found
0.978 of the exact top 10 at `hnsw.ef_search` 400 in 16.9 ms and took ~50 s to build; IVFFlat with
2√n lists and √lists probes 0.994 in 9.6 ms, built in 18 s. At 1M chunks HNSW found 0.738.

An IVF index is trained when it is built: its lists are the k-means cells of the rows there then.
An index built over few rows (a store's first run) is therefore built again once the rows have
grown fourfold (2√n lists twice the index's own): the new index is made beside the old one — a
build takes a SHARE lock, so requests keep reading while only writes wait, and the writer is the one
building — and the old one is dropped after, in the same transaction. An index's lists are in its
name, so a reader sets its probes without asking the writer.
"""

from __future__ import annotations

import hashlib
import math

from hopgraph.store.postgres.connection import PgDatabase, psycopg

LISTS_PER_ROOT = 2  # lists = 2√rows: 632 at 100k, 2,000 at 1M (bench/pg_vector_index.py)
MIN_PROBES = 16  # lists scanned at least: all of a small store's (where √lists would return too few rows)
REBUILD_GROWTH = 2  # build again when the rows ask for twice the lists the index has (4× the rows)
BUILD_MEMORY = "2GB"  # the k-means sample (50 rows a list) and its cells in memory


def lists_for(rows: int) -> int:
    """IVF lists for an index over `rows` vectors (never more lists than rows)."""
    return max(1, min(rows, round(LISTS_PER_ROOT * math.sqrt(rows))))


def probes_for(lists: int) -> int:
    """Lists a query scans: √lists, pgvector's own advice (26 of 632 lists at 100k; 24 found 0.994
    of the exact top 10), and never fewer than `MIN_PROBES` (a query asks for 100 rows; 16 lists of
    a small store are all or most of its rows, so its scan is exact)."""
    return max(1, min(lists, max(MIN_PROBES, math.ceil(math.sqrt(lists)))))


def index_prefix(model: str) -> str:
    return "vectors_ivf_" + hashlib.sha1(model.encode()).hexdigest()[:12] + "_"


def legacy_hnsw_name(model: str) -> str:
    """The HNSW index of stores written before the IVF index; their next index run drops it."""
    return "vectors_hnsw_" + hashlib.sha1(model.encode()).hexdigest()[:12]


def built_lists(db: PgDatabase, model: str) -> dict[str, int]:
    """This model's vector indexes in the current schema: name → lists (0 for a legacy HNSW index)."""
    rows = db.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                      "AND tablename = 'vectors' AND (starts_with(indexname, ?) OR indexname = ?)",
                      (index_prefix(model), legacy_hnsw_name(model))).fetchall()
    return {name: int(name.rsplit("_", 1)[1]) if name.startswith(index_prefix(model)) else 0 for (name,) in rows}


def probes_now(db: PgDatabase, model: str) -> int:
    """The probes for the model's newest IVF index (1 when it has none: the scan is then HNSW or exact)."""
    return probes_for(max(built_lists(db, model).values(), default=1) or 1)


def ensure(db: PgDatabase, model: str) -> bool:
    """Build the model's IVF index if it has none, or a larger one if its rows outgrew it; drop the
    ones it replaces. The caller holds a transaction. True if an index was built."""
    rows = db.execute("SELECT count(*) FROM vectors WHERE model = ?", (model,)).fetchone()[0]
    if not rows:
        return False
    # one row's dimension: a model's vectors share it, and reading every row's would read them all
    dimensions = db.execute("SELECT vector_dims(vector) FROM vectors WHERE model = ? LIMIT 1", (model,)).fetchone()[0]
    built = built_lists(db, model)
    largest = max(built.values(), default=0)
    wanted = lists_for(int(rows))
    if largest and wanted < REBUILD_GROWTH * largest:
        return False
    literal = psycopg.sql.Literal(model).as_string(db.connection)
    db.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
    db.execute(f"CREATE INDEX IF NOT EXISTS {index_prefix(model)}{wanted} ON vectors USING ivfflat "
               f"((vector::vector({int(dimensions)})) vector_cosine_ops) WITH (lists = {wanted}) "
               f"WHERE model = {literal}")
    for name in built.keys() - {f"{index_prefix(model)}{wanted}"}:
        db.execute(f"DROP INDEX IF EXISTS {name}")
    return True
