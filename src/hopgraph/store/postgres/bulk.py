"""An index run's writes in bulk, PostgreSQL's own: documents by the set, chunks and the name graph by
COPY, and on a big first load the keys of the tables it fills built after (keywords.py writes the postings).

The shared table code (store/sql/documents.py) writes a statement per row, which SQLite runs in
process in microseconds; PostgreSQL pays an execution per row, and a foreign-key check per row and
key (a row lock on the chunk or name it names). At 30k synthetic chunks (bench/pg_apply.py,
docs/BENCHMARKS.md) the row-by-row `apply` spent 11.3 s on 0.8 M postings (≈ 6 s foreign-key
checks, ≈ 3 s a primary key grown in random order), 8.8 s on chunk inserts, 5.7 s on the name
graph (mostly the 3 checks of each link) and 2.3 s on a lookup and an insert per document: 29 s
in all besides the HNSW build, 7.8 s written here.

Everything stays in the run's one transaction: COPY and DDL are transactional, so a killed run
leaves the store as it was. Ids are what the row-by-row code gives: documents are inserted in the
change's order by one `INSERT … SELECT … ORDER BY`, chunks copied in that order, and the identity
columns number rows in the order they arrive.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

from hopgraph.records.documents import Chunk, Document
from hopgraph.records.names import GraphRows
from hopgraph.store.postgres.connection import PgDatabase, psycopg
from hopgraph.store.sql.documents import CHUNK_COLUMNS, chunk_row, graph_tables

Upsert = tuple[Document, str, Collection[tuple[Chunk, str]]]  # DocumentChange.upserts' rows
GRAPH_CHILDREN = ("mentions", "links", "abouts")  # the name-graph tables whose rows point at chunks and names
# A first load of at least this many chunks drops the keys of the tables it fills and builds them
# after: dropping and making them again costs ≈ 45 ms, what row-by-row checks cost ≈ 100 chunks.
KEYS_AFTER_CHUNKS = 1_000


def repeats_a_document(upserts: Sequence[Upsert]) -> bool:
    """Whether a change upserts one document twice: the row-by-row code then replaces its own first
    chunks, which a lookup made once for the whole change would not see."""
    return len({(doc.source, doc.title) for doc, _, _ in upserts}) < len(upserts)


def stored_documents(db: PgDatabase, upserts: Sequence[Upsert]) -> dict[int, tuple[int, bool]]:
    """The upserted documents already stored, by position in `upserts`: (id, withdrawn), in order."""
    rows = db.execute(
        "SELECT u.at, d.id, d.withdrawn_at IS NOT NULL FROM unnest(?::text[], ?::text[]) WITH ORDINALITY "
        "AS u(source, title, at) JOIN documents d ON d.source = u.source AND d.title = u.title ORDER BY u.at",
        ([doc.source for doc, _, _ in upserts], [doc.title for doc, _, _ in upserts])).fetchall()
    return {int(at) - 1: (int(doc_id), bool(withdrawn)) for at, doc_id, withdrawn in rows}


def insert_documents(db: PgDatabase, documents: Sequence[tuple[Document, str]], stamp: str) -> list[int]:
    """New document rows (document, content hash) in one statement; their ids, in `documents` order."""
    if not documents:
        return []
    rows = db.execute(
        "INSERT INTO documents (source, title, content_hash, added_at, title_source) "
        "SELECT source, title, content_hash, ?, title_source "
        "FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY "
        "AS u(source, title, content_hash, title_source, at) ORDER BY at RETURNING id, source, title",
        (stamp, [d.source for d, _ in documents], [d.title for d, _ in documents],
         [content_hash for _, content_hash in documents], [d.title_source for d, _ in documents])).fetchall()
    ids = {(source, title): int(doc_id) for doc_id, source, title in rows}
    return [ids[(d.source, d.title)] for d, _ in documents]


def copy_chunks(db: PgDatabase, upserts: Sequence[Upsert], doc_ids: Sequence[int]) -> None:
    """Every upserted document's chunks by one COPY, in the change's order, streamed (a big file's
    spilled chunks are read from their file as they go)."""
    db.copy("chunks", CHUNK_COLUMNS, (chunk_row(doc_id, chunk, text_hash)
                                      for (_, _, chunks), doc_id in zip(upserts, doc_ids, strict=True)
                                      for chunk, text_hash in chunks))


def copy_graph(db: PgDatabase, graph: GraphRows, keys_after: bool) -> None:
    """The name graph replaced: its four tables emptied, then each filled by one COPY."""
    for table in ("links", "mentions", "abouts", "names"):
        db.execute(f"DELETE FROM {table}")
    with keys_built_after(db, GRAPH_CHILDREN) if keys_after else nullcontext():
        for table, (columns, rows) in graph_tables(graph).items():
            db.copy(table, columns, rows)


@contextmanager
def keys_built_after(db: PgDatabase, tables: Sequence[str]) -> Iterator[None]:
    """The tables' primary keys, foreign keys and indexes dropped while the body fills them, then made
    again from their own definitions (read from the catalog, so they are schema.sql's whatever it
    says). Only for tables that start empty: an index built over sorted rows and a key checked by
    one join are many times faster than a btree grown and a key checked row by row (postings at
    30k chunks: 2.8 s against 12 s). The cost is locks: dropping a foreign key locks the table it
    references (chunks, names) against readers until the commit, so this is a first load's only —
    a store with no chunks yet, whose readers wait for it rather than see it empty. A reader that
    holds one of the tables in an open transaction past the lock timeout leaves the keys in place."""
    statements = _key_statements(db, tables)
    dropped = _drop(db, [drop for drop, _ in statements])
    yield  # on an error the transaction rolls back, the dropped keys with it
    if dropped:
        for _, create in reversed(statements):
            db.execute(create)


def _drop(db: PgDatabase, statements: Sequence[str]) -> bool:
    """The statements run in a savepoint: all of them, or (a lock not granted within the
    transaction's lock timeout) none, and False."""
    try:
        with db.transaction():
            for statement in statements:
                db.execute(statement)
    except psycopg.errors.LockNotAvailable:
        return False
    return True


def _key_statements(db: PgDatabase, tables: Sequence[str]) -> list[tuple[Any, Any]]:
    """(drop, create) per foreign key, then per primary or unique key, then per other index of the
    tables: dropped in this order, made again in the reverse (a key before the keys that use it)."""
    keys = db.execute(
        "SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname), "
        "format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) "
        "FROM pg_constraint WHERE conrelid = ANY(?::regclass[]) AND contype IN ('f', 'p', 'u') "
        "ORDER BY contype <> 'f', conrelid, conname", (list(tables),)).fetchall()
    indexes = db.execute(
        "SELECT format('DROP INDEX %s', i.indexrelid::regclass), pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "WHERE i.indrelid = ANY(?::regclass[]) AND NOT EXISTS (SELECT 1 FROM pg_constraint c "
        "WHERE c.conrelid = i.indrelid AND c.conindid = i.indexrelid) ORDER BY i.indexrelid",
        (list(tables),)).fetchall()
    return [*keys, *indexes]
