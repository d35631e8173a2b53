"""PostgreSQL's bulk index writes (store/postgres/bulk.py) give what the shared row-by-row code gave
it: the same ids in the same order, the same deletions handed to the carry, and on a first load the
keys and indexes of schema.sql back in place."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from pgkit import schema_url

from hopgraph.records.documents import ChunkTable, DocumentChange
from hopgraph.records.names import GraphRows
from hopgraph.store import Store, open_store
from hopgraph.store.postgres import bulk
from hopgraph.store.sql.carry import Deleted
from hopgraph.store.sql.documents import DocumentTables

from ..sql.test_documents import AUTHOR, FILM, VILLAGE, apply, count_rows, table_state, upsert


@pytest.fixture(autouse=True)
def keys_after_any_first_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keys dropped and built after on every first load here, not only on one of 1,000 chunks."""
    monkeypatch.setattr(bulk, "KEYS_AFTER_CHUNKS", 1)


def applied(store: Store, change: DocumentChange) -> Deleted:
    """`apply` the change; what its document writes reported deleted and created."""
    seen: list[Deleted] = []
    inner = store._apply_documents
    store._apply_documents = lambda c: seen.append(inner(c)) or seen[-1]  # type: ignore[method-assign]
    try:
        apply(store, change)
    finally:
        del store._apply_documents
    return seen[0]


def state(store: Store) -> tuple:
    documents = sorted((key, d.id, d.content_hash) for key, d in store.active_documents().items())
    graph = store.name_graph()
    links = sorted((link.source_chunk, link.target_chunk, link.name_id, link.weight) for link in graph.links)
    abouts = sorted((about.chunk_id, about.name_id, about.weight) for about in graph.abouts)
    return table_state(store.chunk_table()), documents, graph.names, links, abouts


def runs(store: Store) -> list[tuple]:
    """A first load, then a run that adds, replaces and withdraws, then one that brings a withdrawn
    document back among new ones, then one naming a document twice (the row-by-row path)."""
    author_changed = upsert("Adriana Trigiani", "Adriana Trigiani wrote Big Stone Gap.",
                            "She lives in Greenwich Village.")
    out = [(applied(store, DocumentChange(upserts=[FILM, AUTHOR, VILLAGE])), state(store))]
    village = store.active_documents()[("src", "Greenwich Village")].id
    second = DocumentChange(upserts=[upsert("Manhattan", "Manhattan holds Greenwich Village."), author_changed],
                            withdrawn=[village])
    out.append((applied(store, second), state(store)))
    third = DocumentChange(upserts=[upsert("Brooklyn", "Brooklyn faces Manhattan."), VILLAGE,
                                    upsert("Big Stone Gap (film)", "Big Stone Gap opened in 2014.")])
    out.append((applied(store, third), state(store)))
    twice = DocumentChange(upserts=[upsert("Queens", "Queens is east."),
                                    upsert("Queens", "Queens is east of Manhattan.")])
    out.append((applied(store, twice), state(store)))
    return out


@pytest.fixture
def row_by_row(pg_server: str) -> Iterator[Store]:
    """A PostgreSQL store in a schema of its own that writes documents and the name graph with the
    shared code's statements, as it did before bulk.py."""
    schema = f"r_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    store = open_store(schema_url(pg_server, schema))
    store._upsert_in_bulk = lambda change: DocumentTables._apply_documents(store, change)  # type: ignore[attr-defined]
    store._replace_graph = lambda graph: DocumentTables._replace_graph(store, graph)  # type: ignore[method-assign]
    yield store
    store.close()
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f"DROP SCHEMA {schema} CASCADE")


def test_bulk_writes_give_the_ids_rows_and_deletions_of_the_row_by_row_code(pg_url: str, row_by_row: Store) -> None:
    postgres = open_store(pg_url)
    expected, got = runs(row_by_row), runs(postgres)
    for (want_deleted, want_state), (deleted, found) in zip(expected, got, strict=True):
        assert found == want_state
        assert deleted == want_deleted
        assert list(deleted.created.items()) == list(want_deleted.created.items())  # in the change's order
    assert count_rows(postgres, "postings") == count_rows(row_by_row, "postings") > 0
    postgres.close()


def keys(store: Store) -> list[tuple]:
    """Every constraint and index of the store's schema, as PostgreSQL would write it."""
    return store._db.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE connamespace = current_schema()::regnamespace UNION ALL "
        "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
        "ORDER BY 1, 2, 3").fetchall()


def key_oids(store: Store) -> dict[str, int]:
    """The catalog ids of the keys of the tables a first load fills: new ones when it built them again."""
    return dict(store._db.execute("SELECT conname, oid::bigint FROM pg_constraint "
                                  "WHERE conrelid = ANY(ARRAY['postings', 'mentions', 'links', 'abouts']::regclass[])"))


def test_a_first_load_puts_back_every_key_and_index_that_it_drops(pg_url: str) -> None:
    store = open_store(pg_url)
    fresh, fresh_oids = keys(store), key_oids(store)

    def broken(_: ChunkTable) -> GraphRows:
        raise RuntimeError("graph builder failed")

    with pytest.raises(RuntimeError):  # the postings' keys were dropped and built again, then rolled back
        apply(store, DocumentChange(upserts=[FILM, AUTHOR]), broken)
    assert (keys(store), key_oids(store), count_rows(store, "chunks")) == (fresh, fresh_oids, 0)
    apply(store, DocumentChange(upserts=[FILM, AUTHOR]))
    built = key_oids(store)
    # the postings' foreign key and the three name-graph tables' primary keys (they have no foreign keys)
    assert keys(store) == fresh and len(built) == 4 and not set(built.values()) & set(fresh_oids.values())
    assert count_rows(store, "links") > 0 and count_rows(store, "postings") > 0
    apply(store, DocumentChange(withdrawn=[store.active_documents()[("src", "Adriana Trigiani")].id]))
    assert store._db.execute("SELECT count(*) FROM postings WHERE term = 'author'").fetchone()[0] == 0  # cascaded
    apply(store, DocumentChange(upserts=[VILLAGE]))
    assert key_oids(store) == built  # not a first load: the keys stay
    store.close()


def test_a_reader_holding_a_table_past_the_lock_timeout_leaves_the_keys_in_place(pg_url: str) -> None:
    store = open_store(pg_url, lock_timeout=0.3)
    fresh_oids = key_oids(store)
    with psycopg.connect(pg_url, autocommit=True) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM chunks")  # holds chunks until its transaction ends
        apply(store, DocumentChange(upserts=[FILM, AUTHOR]))
        reader.execute("ROLLBACK")
    after = key_oids(store)
    # dropping the postings' foreign key locks chunks, which the reader holds: they are written with
    # every key in place; the name graph's tables have only their own primary keys (no foreign keys
    # since version 3), which lock nothing the reader holds, so they are built again after the load
    postings = {key for key in fresh_oids if key.startswith("postings")}
    assert postings and {k: after[k] for k in postings} == {k: fresh_oids[k] for k in postings}
    assert all(after[key] != fresh_oids[key] for key in fresh_oids.keys() - postings)
    assert count_rows(store, "links") > 0 and count_rows(store, "postings") > 0
    store.close()
