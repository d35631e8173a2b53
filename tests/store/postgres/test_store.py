"""The PostgreSQL store's own behaviour: reaching the server, pgvector, other applications' tables,
schema versions, and writers that queue instead of interleaving."""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import psycopg
import pytest
from pgkit import schema_url

from hopgraph.errors import HopgraphError
from hopgraph.ingest.carry import carry_facts
from hopgraph.linkgraph.links import build_name_graph
from hopgraph.records.documents import RunRecord
from hopgraph.store import open_store
from hopgraph.store.postgres import vector_index
from hopgraph.store.postgres.connection import SCHEMA_VERSION, shown

from ..sql.test_documents import AUTHOR, FILM, MODEL, apply
from ..sql.test_documents import DocumentChange as Change


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_server_fails_within_seconds_naming_the_url_not_the_password() -> None:
    url = f"postgresql://hopgraph:s3cret@127.0.0.1:{free_port()}/hopgraph"
    started = time.monotonic()
    with pytest.raises(HopgraphError, match="cannot reach PostgreSQL") as caught:
        open_store(url)
    assert time.monotonic() - started < 6
    assert f"127.0.0.1:{urlsplit(url).port}" in str(caught.value)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize("secrets", ["?password=topsecret", "?sslmode=disable&password=topsecret&sslpassword=keypass",
                                     "?PassWord=topsecret&application_name=x"])
def test_a_password_in_the_url_query_is_not_printed_either(secrets: str) -> None:
    url = f"postgresql://me@127.0.0.1:{free_port()}/db{secrets}"
    with pytest.raises(HopgraphError, match="cannot reach PostgreSQL") as caught:
        open_store(url)
    assert "topsecret" not in str(caught.value) and "keypass" not in str(caught.value)
    assert "=***" in str(caught.value) and "127.0.0.1" in str(caught.value)


@pytest.mark.parametrize(("url", "expected"), [
    ("postgresql://u:p%40ss:w@h1:5432,h2/db?password=x&sslpassword=y&options=-csearch_path%3Ds",
     "postgresql://u:***@h1:5432,h2/db?password=***&sslpassword=***&options=-csearch_path%3Ds"),
    ("postgresql://u:@/db?host=%2Ftmp&password=", "postgresql://u:@/db?host=%2Ftmp&password="),  # none given
    ("postgresql:///db?host=/tmp", "postgresql:///db?host=/tmp"),  # nothing secret: unchanged
])
def test_shown_hides_every_password_and_keeps_the_rest_of_the_url(url: str, expected: str) -> None:
    assert shown(url) == expected


def as_role(url: str, role: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{role}@", path=f"/{database}"))


def test_a_database_without_pgvector_that_the_role_cannot_add_is_named(pg_server: str) -> None:
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS novector")
        admin.execute("DROP ROLE IF EXISTS plain")
        admin.execute("CREATE ROLE plain LOGIN")
        admin.execute("CREATE DATABASE novector")  # owned by the superuser: plain may not add extensions
    with pytest.raises(HopgraphError, match=r"no pgvector extension \(`vector`\)") as caught:
        open_store(as_role(pg_server, "plain", "novector"))
    assert "CREATE EXTENSION vector" in str(caught.value)


def test_a_schema_with_another_applications_tables_is_left_untouched(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as other:
        other.execute("CREATE TABLE documents (id int, body text)")
    with pytest.raises(HopgraphError, match=r"not a hopgraph store.*documents.*left untouched"):
        open_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as other:
        tables = {r[0] for r in other.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    assert tables == {"documents"}


def test_reading_an_empty_schema_is_an_error_and_creates_nothing(pg_url: str) -> None:
    with pytest.raises(HopgraphError, match="no hopgraph store at"):
        open_store(pg_url, create=False)
    with psycopg.connect(pg_url, autocommit=True) as db:
        assert db.execute("SELECT count(*) FROM information_schema.tables "
                          "WHERE table_schema = current_schema()").fetchone()[0] == 0


def test_a_store_of_a_newer_hopgraph_is_refused_with_both_versions(pg_url: str) -> None:
    open_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE hopgraph_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(HopgraphError, match=f"version {SCHEMA_VERSION + 1}.*up to {SCHEMA_VERSION}"):
        open_store(pg_url)


def test_a_second_writer_waits_then_gives_up_naming_the_first(pg_url: str) -> None:
    first, second = open_store(pg_url), open_store(pg_url, lock_timeout=0.5)
    try:
        with first._transaction():
            started = time.monotonic()
            with pytest.raises(HopgraphError, match=r"is locked by pid \d+ `.*`"):
                second.set_meta({"k": "v"})
            assert 0.4 < time.monotonic() - started < 5
        second.set_meta({"k": "v"})  # the lock is free again
        assert first.meta() == {"k": "v"}
    finally:
        first.close()
        second.close()


def test_two_index_runs_never_interleave(pg_url: str) -> None:
    """The second run's apply starts only after the first committed: it sees the first's documents."""
    first, second = open_store(pg_url), open_store(pg_url)
    seen: list[set] = []

    def build(table):  # runs inside apply's transaction, after its documents were written
        time.sleep(0.3)
        seen.append({first_title for first_title in table.titles.values()})
        from hopgraph.linkgraph.links import build_name_graph
        return build_name_graph(table)

    runner = threading.Thread(target=apply, args=(first, Change(upserts=[FILM]), build))
    runner.start()
    time.sleep(0.1)
    apply(second, Change(upserts=[AUTHOR]), build)
    runner.join()
    first.close()
    second.close()
    assert seen == [{"Big Stone Gap (film)"}, {"Big Stone Gap (film)", "Adriana Trigiani"}]


def test_an_index_run_builds_one_ivf_index_per_embedder_and_again_once_its_rows_outgrow_it(pg_url: str) -> None:
    store = open_store(pg_url)

    def vector_indexes() -> list[str]:
        return [r[0] for r in store._db.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'vectors' "
                                                "AND schemaname = current_schema() AND indexdef ~ 'ivfflat|hnsw'")]

    def unit(i: int) -> np.ndarray:
        return np.array([np.cos(i), np.sin(i), 0.5], np.float32)

    store.save_vectors({"a": np.array([1, 0, 0], np.float32), "b": np.array([0, 1, 0], np.float32)}, MODEL)
    assert vector_indexes() == []  # saved vectors wait for the run's end: one bulk build, not one per batch
    run = RunRecord("index", "2026-01-01T00:00:00", lambda: "{}")
    store.apply(Change(upserts=[FILM]), build_name_graph, {"embedder": MODEL}, run, carry_facts)
    [first] = vector_indexes()
    assert "ivfflat" in first and "vector(3)" in first and MODEL in first and "lists='2'" in first
    assert store.ensure_vector_index(MODEL) is False  # there already, and its rows have not grown
    store.save_vectors({f"h{i}": unit(i) for i in range(14)}, MODEL)  # 16 rows: 8 lists, four times the 2
    assert store.ensure_vector_index(MODEL) is True
    [grown] = vector_indexes()  # built beside the first, which is dropped
    assert "lists='8'" in grown and vector_index.probes_now(store._db, MODEL) == 8  # a small store: every list
    store.close()


def test_a_store_with_the_older_hnsw_index_gets_the_ivf_index_at_its_next_build(pg_url: str) -> None:
    store = open_store(pg_url)
    store.save_vectors({f"h{i}": np.array([i, 1, 0], np.float32) for i in range(5)}, MODEL)
    store._db.execute(f"CREATE INDEX {vector_index.legacy_hnsw_name(MODEL)} ON vectors USING hnsw "
                      f"((vector::vector(3)) vector_cosine_ops) WHERE model = '{MODEL}'")
    assert vector_index.built_lists(store._db, MODEL) == {vector_index.legacy_hnsw_name(MODEL): 0}
    assert store.ensure_vector_index(MODEL) is True
    assert vector_index.built_lists(store._db, MODEL) == {vector_index.index_prefix(MODEL) + "4": 4}
    store.close()


def test_lists_grow_with_the_root_of_the_rows_and_probes_with_the_root_of_the_lists() -> None:
    assert [vector_index.lists_for(n) for n in (1, 3, 100, 100_000, 1_000_000)] == [1, 3, 20, 632, 2000]
    assert [vector_index.probes_for(lists) for lists in (1, 20, 632, 2000)] == [1, 16, 26, 45]


def test_replies_survive_a_rolled_back_write(pg_url: str) -> None:
    store = open_store(pg_url)
    cache = store.reply_cache()
    with pytest.raises(RuntimeError), store._transaction():
        cache.put("k", "m", "reply", 3, 4)
        raise RuntimeError("the run failed")
    assert cache.get("k").response == "reply"
    assert len(cache) == 1
    cache.close()
    store.close()


def test_a_schema_in_the_url_keeps_two_stores_apart(pg_server: str, pg_url: str) -> None:
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute("CREATE SCHEMA IF NOT EXISTS other_store")
    other_url = schema_url(pg_server, "other_store")
    a, b = open_store(pg_url), open_store(other_url)
    apply(a, Change(upserts=[FILM]))
    assert b.active_documents() == {}
    a.close()
    b.close()
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute("DROP SCHEMA other_store CASCADE")


def test_every_foreign_key_leads_an_index_so_no_cascade_scans_its_table(pg_url: str) -> None:
    """Replacing the name graph deletes every name, and each deleted name's cascade looks up the rows
    that name it; removing a document does the same for its chunks. A foreign key whose columns do
    not lead an index makes each lookup a scan of the whole table: over six minutes a write at 100k
    chunks (docs/BENCHMARKS.md, "Stateless query replicas")."""
    open_store(pg_url).close()
    with psycopg.connect(pg_url) as db:
        assert unindexed_foreign_keys(db) == []


def unindexed_foreign_keys(db: psycopg.Connection) -> list[tuple[str, str]]:
    """(table, column) of each foreign key of the store's schema whose first column leads no index."""
    return db.execute("""
        SELECT c.conrelid::regclass::text, a.attname FROM pg_constraint c
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
          AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])
        ORDER BY 1, 2""").fetchall()


def test_no_name_graph_row_outlives_its_chunk_or_name_though_the_graph_has_no_foreign_keys(pg_url: str) -> None:
    """Version 3 dropped the name graph's foreign keys (schema.sql): each run that changes chunks
    rewrites the graph in its own transaction, so a removed or rewritten document leaves no row
    behind — here after an index run, an update and a removal."""
    from testkit import TINY_CORPUS, BagOfWordsEmbedder

    from hopgraph.config import Settings
    from hopgraph.engine import HopGraph
    from hopgraph.records.documents import Document

    orphans = {
        "mentions": "SELECT count(*) FROM mentions m WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = m.chunk_id) "
                    "OR NOT EXISTS (SELECT 1 FROM names n WHERE n.id = m.name_id)",
        "links": "SELECT count(*) FROM links l WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = l.source_chunk) "
                 "OR NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = l.target_chunk) "
                 "OR NOT EXISTS (SELECT 1 FROM names n WHERE n.id = l.name_id)",
        "abouts": "SELECT count(*) FROM abouts a WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = a.chunk_id) "
                  "OR NOT EXISTS (SELECT 1 FROM names n WHERE n.id = a.name_id)"}
    with HopGraph(pg_url, Settings(search_in="snapshot"), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents(TINY_CORPUS)
        first = hg.store._db.execute("SELECT count(*) FROM links").fetchone()[0]
        changed = Document(TINY_CORPUS[0].title, "Big Stone Gap is a film by Adriana Trigiani, shot in Virginia.",
                           TINY_CORPUS[0].source)
        hg.index_documents([changed], replace_sources=False)
        stored = hg.store.active_documents()[(TINY_CORPUS[1].source, TINY_CORPUS[1].title)]
        hg.remove([str(stored.id)])
        db = hg.store._db
        assert first > 0 and {table: db.execute(sql).fetchone()[0] for table, sql in orphans.items()} == {
            "mentions": 0, "links": 0, "abouts": 0}
        assert db.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = "
                          "ANY(ARRAY['mentions', 'links', 'abouts']::regclass[])").fetchone()[0] == 0


def test_the_name_graph_and_chunk_columns_read_by_binary_copy_equal_the_shared_statements(pg_url: str) -> None:
    """A replica's reload reads both by binary COPY (columns.py); the shared table code's plain
    SELECTs read the same rows, field for field, after a withdrawal."""
    from testkit import TINY_CORPUS, BagOfWordsEmbedder

    from hopgraph.config import Settings
    from hopgraph.engine import HopGraph
    from hopgraph.store.sql.documents import DocumentTables

    with HopGraph(pg_url, Settings(search_in="snapshot"), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents(TINY_CORPUS)
        hg.remove([str(hg.store.active_documents()[(TINY_CORPUS[1].source, TINY_CORPUS[1].title)].id)])
        store = hg.store
        copied, (ours, labels) = store.name_graph(), store.chunk_columns()
        # the same reads through the shared fetch-and-convert, on the same store
        store._numeric_columns = lambda query, kinds: DocumentTables._numeric_columns(store, query, kinds)
        shared, (theirs, shared_labels) = store.name_graph(), store.chunk_columns()
        del store._numeric_columns
        assert len(copied.links) > 0 and len(copied.abouts) > 0
        assert copied.names == shared.names and list(copied.links) == list(shared.links)
        assert list(copied.abouts) == list(shared.abouts)
        assert copied.links.source_chunk.dtype == np.int64 and copied.links.weight.dtype == np.float64
        assert labels == shared_labels and ours.keys() == theirs.keys()
        for name, column in ours.items():
            assert column.dtype == theirs[name].dtype and np.array_equal(column, theirs[name]), name


def test_a_binary_copy_with_a_null_or_another_width_is_refused_not_misread(pg_url: str) -> None:
    from hopgraph.store.postgres import columns

    store = open_store(pg_url)
    try:
        assert [c.tolist() for c in columns.copied(store._db, "SELECT 7::bigint, 2.5::float8", "if")] == [[7], [2.5]]
        with pytest.raises(HopgraphError, match="not rows of 'if': a NULL"):
            columns.copied(store._db, "SELECT 7::bigint, NULL::float8", "if")
        with pytest.raises(HopgraphError, match="not rows of"):
            columns.copied(store._db, "SELECT 7::integer, 2.5::float8", "if")  # a 4-byte field: rows of another width
    finally:
        store.close()
