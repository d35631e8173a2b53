"""The document tables, shared by the SQL backends: documents, chunks, names, mentions, links, readings, meta.

Vectors are the backend's own (a BLOB in SQLite, pgvector's type in PostgreSQL): `vector_matrix`
reads them through the backend's `cached_vectors`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from hopgraph.errors import HopgraphError
from hopgraph.records.documents import (
    Chunk,
    ChunkTable,
    Document,
    DocumentChange,
    RunRecord,
    StoredDocument,
    cite,
    utc_now,
)
from hopgraph.records.names import AboutColumns, GraphRows, LinkColumns, NameGraph, StoredName
from hopgraph.store.base import FactCarrier, GraphBuilder
from hopgraph.store.sql import carry as carrying
from hopgraph.store.sql.tables import UPSERT_META, Tables, batches

CHUNK_COLUMNS = "doc_id, ord, text, n_tokens, text_hash, page, continues"


def chunk_row(doc_id: int, chunk: Chunk, text_hash: str) -> tuple[Any, ...]:
    """A chunk's values in CHUNK_COLUMNS' order."""
    return doc_id, chunk.ord, chunk.text, chunk.n_tokens, text_hash, chunk.page, int(chunk.continues)


def graph_tables(graph: GraphRows) -> dict[str, tuple[str, Iterator[tuple[Any, ...]]]]:
    """Each name-graph table's columns and rows, in the order they are written (names first: the
    others refer to them). Name ids are positions + 1."""
    return {"names": ("id, surface, kind, doc_id, filtered",
                      ((i + 1, n.surface, n.kind, n.doc_id, n.filtered) for i, n in enumerate(graph.names))),
            "mentions": ("chunk_id, name_id", ((c, n + 1) for c, n in graph.mentions)),
            "links": ("source_chunk, target_chunk, name_id, weight",
                      ((s, t, n + 1, w) for s, t, n, w in graph.links)),
            "abouts": ("chunk_id, name_id, weight", ((c, n + 1, w) for c, n, w in graph.abouts))}


class DocumentTables(Tables):
    def active_documents(self) -> dict[tuple[str, str], StoredDocument]:
        rows = self._db.execute(
            "SELECT id, source, title, content_hash, title_source, added_at FROM documents "
            "WHERE withdrawn_at IS NULL")
        return {(r[1], r[2]): StoredDocument(*r) for r in rows}

    def apply(self, change: DocumentChange, build_graph: GraphBuilder, meta: dict[str, str],
              run: RunRecord, carry: FactCarrier) -> GraphRows:
        with self._transaction():
            deleted = self._apply_documents(change)
            table = self.chunk_table()
            carrying.carry_facts(self._db, deleted, table, carry)
            # Vectors are a cache of texts the index holds: those of deleted chunks whose text no chunk
            # holds now go (never those of other texts, such as a killed run's, paid for and not yet used).
            carrying.drop_unused_vectors(self._db, deleted, table)
            graph = build_graph(table)
            self._replace_graph(graph)
            self._db.executemany(UPSERT_META, list(meta.items()))
            self._db.execute("INSERT INTO runs (command, started_at, finished_at, stats) VALUES (?, ?, ?, ?)",
                             (run.command, run.started_at, utc_now(), run.stats()))
        return graph

    def _apply_documents(self, change: DocumentChange) -> carrying.Deleted:
        """The document rows and chunks of the change; returns what it deleted, for `apply` to carry."""
        stamp = utc_now()
        deleted = self._withdraw(change, stamp)
        for doc, content_hash, chunks in change.upserts:
            row = self._db.execute("SELECT id, withdrawn_at FROM documents WHERE source = ? AND title = ?",
                                   (doc.source, doc.title)).fetchone()
            if row:
                doc_id = row[0]
                self._replace_document(doc_id, doc, content_hash, stamp, deleted)
                if row[1] is not None:  # back after a withdrawal: new to the index, as a created one is
                    deleted.created[doc_id] = doc.title
            else:
                doc_id = self._db.execute(
                    "INSERT INTO documents (source, title, content_hash, added_at, title_source) "
                    "VALUES (?, ?, ?, ?, ?) RETURNING id",
                    (doc.source, doc.title, content_hash, stamp, doc.title_source)).fetchone()[0]
                deleted.created[doc_id] = doc.title
            deleted.rechunked.add(doc_id)
            self._db.executemany(f"INSERT INTO chunks ({CHUNK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (chunk_row(doc_id, c, text_hash) for c, text_hash in chunks))  # streamed
        return deleted

    def _withdraw(self, change: DocumentChange, stamp: str) -> carrying.Deleted:
        """The change's retitled documents relabelled and its withdrawn ones marked, their chunks deleted."""
        deleted = carrying.Deleted()
        self._db.executemany("UPDATE documents SET title_source = ? WHERE id = ?",
                             [(source, doc_id) for doc_id, source in change.retitled])
        for doc_id in change.withdrawn:
            carrying.delete_chunks(self._db, doc_id, deleted)
            title = self._db.execute("UPDATE documents SET withdrawn_at = ? WHERE id = ? RETURNING title",
                                     (stamp, doc_id)).fetchone()
            deleted.withdrawn[doc_id] = title[0] if title else ""
        return deleted

    def _replace_document(self, doc_id: int, doc: Document, content_hash: str, stamp: str,
                          deleted: carrying.Deleted) -> None:
        """A stored document's old chunks deleted (remembered in `deleted`), its row updated and active."""
        carrying.delete_chunks(self._db, doc_id, deleted)
        self._db.execute("UPDATE documents SET content_hash = ?, title_source = ?, added_at = ?, "
                         "withdrawn_at = NULL WHERE id = ?", (content_hash, doc.title_source, stamp, doc_id))

    def _replace_graph(self, graph: GraphRows) -> None:
        for table in ("links", "mentions", "abouts", "names"):
            self._db.execute(f"DELETE FROM {table}")
        for table, (columns, rows) in graph_tables(graph).items():
            marks = ", ".join("?" * len(columns.split(", ")))
            self._db.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)

    def chunk_table(self) -> ChunkTable:
        """The active chunks, read row by row into the columns (a list of every row first would hold
        a big file's text twice)."""
        columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [])
        for row in self._db.execute(
                "SELECT c.id, c.doc_id, c.text, c.text_hash, c.ord, c.page, c.continues FROM chunks c "
                "JOIN documents d ON d.id = c.doc_id WHERE d.withdrawn_at IS NULL ORDER BY c.id"):
            for column, value in zip(columns, row, strict=True):
                column.append(value)
        ids, doc_ids, texts, text_hashes, ords, pages, continues = columns
        documents = self._db.execute(
            "SELECT id, title, source, title_source FROM documents WHERE withdrawn_at IS NULL").fetchall()
        return ChunkTable(
            ids=np.asarray(ids, dtype=np.int64), doc_ids=np.asarray(doc_ids, dtype=np.int64),
            texts=texts, text_hashes=text_hashes,
            titles={doc_id: title for doc_id, title, _, _ in documents},
            sources={doc_id: source for doc_id, _, source, _ in documents},
            title_sources={doc_id: title_source for doc_id, _, _, title_source in documents},
            ords=ords, pages=pages, continues=[bool(c) for c in continues])

    def chunk_columns(self) -> tuple[dict[str, np.ndarray], dict[str, dict[int, str]]]:
        """The active chunks' columns without their texts (ids, doc_ids, ords, pages with -1 for
        none, continues) and the documents' titles, sources and title sources: what a search index
        served from the database holds in memory (retrieval/database_index.py); texts are read as hits need them."""
        ids, doc_ids, ords, pages, continues = self._numeric_columns(
            "SELECT c.id, CAST(c.doc_id AS BIGINT), CAST(c.ord AS BIGINT), CAST(coalesce(c.page, -1) AS BIGINT), "
            "CAST(c.continues AS BIGINT) FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "WHERE d.withdrawn_at IS NULL ORDER BY c.id", "iiiii")
        columns = {"ids": ids, "doc_ids": doc_ids, "ords": ords.astype(np.int32), "pages": pages.astype(np.int32),
                   "continues": continues.astype(bool)}
        documents = self._db.execute(
            "SELECT id, title, source, title_source FROM documents WHERE withdrawn_at IS NULL").fetchall()
        return columns, {"titles": {d: title for d, title, _, _ in documents},
                         "sources": {d: source for d, _, source, _ in documents},
                         "title_sources": {d: title_source for d, _, _, title_source in documents}}

    def _numeric_columns(self, query: str, kinds: str) -> list[np.ndarray]:
        """The columns of `query`'s rows, every field NOT NULL: int64 for a `kinds` letter "i"
        (a BIGINT), float64 for "f" (a DOUBLE PRECISION). One array conversion for all the rows: a
        replica reloads millions of them at each write. PostgreSQL reads them by binary COPY instead
        (store/postgres/columns.py)."""
        rows = self._db.execute(query).fetchall()
        # ids < 2**53, so a float64 table holds them exactly when a field is a float
        table = np.array(rows, dtype=np.float64 if "f" in kinds else np.int64).reshape(-1, len(kinds))
        return [table[:, at].astype(np.int64 if kind == "i" else np.float64) for at, kind in enumerate(kinds)]

    def vector_matrix(self, text_hashes: Sequence[str], model: str) -> np.ndarray:
        found = self.cached_vectors(text_hashes, model)
        missing = [h for h in text_hashes if h not in found]
        if missing:
            raise HopgraphError(f"{self.location}: {len(missing)} chunk(s) have no {model} vector; "
                                f"re-run `hopgraph index` with this embedder")
        if not text_hashes:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack([found[h] for h in text_hashes])

    def name_graph(self) -> NameGraph:
        names = self._db.execute("SELECT id, surface, doc_id, filtered FROM names ORDER BY id").fetchall()
        links = self._numeric_columns("SELECT source_chunk, target_chunk, name_id, weight FROM links", "iiif")
        abouts = self._numeric_columns("SELECT chunk_id, name_id, weight FROM abouts", "iif")
        return NameGraph(list(map(StoredName._make, names)), LinkColumns(*links), AboutColumns(*abouts))

    def cached_readings(self, text_hashes: Sequence[str], reader: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for part, marks in batches(list(dict.fromkeys(text_hashes))):
            found.update(self._db.execute(
                f"SELECT text_hash, payload FROM readings WHERE reader = ? AND text_hash IN ({marks})",
                [reader, *part]).fetchall())
        return found

    def save_readings(self, readings: dict[str, str], reader: str) -> None:
        with self._transaction():
            self._db.executemany("INSERT INTO readings (text_hash, reader, payload) VALUES (?, ?, ?) "
                                 "ON CONFLICT (text_hash, reader) DO UPDATE SET payload = excluded.payload",
                                 [(h, reader, p) for h, p in readings.items()])

    def chunk_texts(self, chunk_ids: set[int] | list[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        for part, marks in batches(sorted({int(i) for i in chunk_ids})):
            found.update(self._db.execute(f"SELECT id, text FROM chunks WHERE id IN ({marks})", part).fetchall())
        return found

    def chunk_citations(self, chunk_ids: set[int] | list[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        for part, marks in batches(sorted({int(i) for i in chunk_ids})):
            rows = self._db.execute(
                "SELECT c.id, d.title, d.source, d.title_source, c.ord, c.page FROM chunks c "
                f"JOIN documents d ON d.id = c.doc_id WHERE c.id IN ({marks})", part)
            found.update({row[0]: cite(*row[1:]) for row in rows})
        return found

    def meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM meta"))

    def set_meta(self, values: dict[str, str]) -> None:
        with self._transaction():
            self._db.executemany(UPSERT_META, list(values.items()))

    def chunk_docs(self) -> dict[int, int]:
        return dict(self._db.execute("SELECT id, doc_id FROM chunks"))
