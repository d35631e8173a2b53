"""The shared store: PostgreSQL with pgvector; many processes, one database; every write one transaction."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from hopgraph.llm.cache import LLMCache
from hopgraph.records.documents import DocumentChange, RunRecord, utc_now
from hopgraph.records.names import GraphRows
from hopgraph.store.base import FactCarrier, GraphBuilder
from hopgraph.store.postgres import bulk, columns, keywords, migrations, vector_index
from hopgraph.store.postgres.connection import PgDatabase, Transaction, connect, open_connection, psycopg, shown
from hopgraph.store.postgres.search import SqlSearch
from hopgraph.store.sql.carry import Deleted
from hopgraph.store.sql.communities import CommunityTables
from hopgraph.store.sql.documents import DocumentTables
from hopgraph.store.sql.knowledge import KnowledgeTables
from hopgraph.store.sql.replies import TableLLMCache
from hopgraph.store.sql.stats import StatsTables


class PostgresStore(DocumentTables, KnowledgeTables, CommunityTables, StatsTables, SqlSearch):
    """All five store protocols (store/base.py) in one PostgreSQL schema.

    The table code is store/sql/'s, shared with SQLite; what is PostgreSQL's own is here: vectors as
    pgvector values with one IVFFlat index per embedding model (vector_index.py), the reply cache's connection, and the
    searches that run as one SQL statement (search.py)."""

    def __init__(self, url: str, create: bool = True, lock_timeout: float = 30.0) -> None:
        self._path = url
        self._lock_timeout = lock_timeout
        self._db: PgDatabase = connect(url, create, lock_timeout)
        try:
            migrations.upgrade(self._db, url, lock_timeout)
        except BaseException:
            self._db.close()
            raise
        self._keys_after = False  # set by `_apply_documents` for the rest of its transaction (bulk.py)

    @property
    def location(self) -> str:
        """The URL without its password: what every message, `--json` result and the search
        snapshot's folder name (a hash of it) see."""
        return shown(self._path)

    def _transaction(self) -> Transaction:
        return Transaction(self._db, self._path, self._lock_timeout)

    def cached_vectors(self, text_hashes: Sequence[str], model: str) -> dict[str, np.ndarray]:
        """One statement with the hashes as an array parameter (PostgreSQL has no bound on its
        length), where SQLite needs `IN` lists of a few hundred."""
        rows = self._db.execute("SELECT text_hash, vector FROM vectors WHERE model = ? AND text_hash = ANY(?)",
                                (model, list(dict.fromkeys(text_hashes))))
        return {text_hash: as_array(vector) for text_hash, vector in rows}

    def save_vectors(self, vectors: dict[str, np.ndarray], model: str) -> None:
        if not vectors:
            return
        with self._transaction():
            self._db.executemany(
                "INSERT INTO vectors (text_hash, model, vector) VALUES (?, ?, ?) "
                "ON CONFLICT (text_hash, model) DO UPDATE SET vector = excluded.vector",
                [(h, model, np.asarray(v, dtype=np.float32)) for h, v in vectors.items()])

    def apply(self, change: DocumentChange, build_graph: GraphBuilder, meta: dict[str, str],
              run: RunRecord, carry: FactCarrier) -> GraphRows:
        """The shared apply (with this store's bulk writes, bulk.py), then the embedder's vector index
        if it has none yet or its rows outgrew it: built over all of a run's vectors (much faster
        than growing it batch by batch as they are saved); later runs' vectors join it as they are
        inserted, each into its nearest list."""
        try:
            graph = super().apply(change, build_graph, meta, run, carry)
        finally:
            self._keys_after = False
        if meta.get("embedder"):
            self.ensure_vector_index(meta["embedder"])
        return graph

    def _apply_documents(self, change: DocumentChange) -> Deleted:
        """The shared document writes in bulk (bulk.py), then the keyword index's postings of the new
        chunks and its counts (keywords.py). Chunk ids only grow (an identity column), so the new chunks are
        those above the old maximum; a maximum of 0 is a store with no chunks: on a first load of
        many, the postings and name-graph tables get their keys after their rows."""
        before = self._db.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0]
        self._keys_after = before == 0 and sum(len(c) for _, _, c in change.upserts) >= bulk.KEYS_AFTER_CHUNKS
        if bulk.repeats_a_document(change.upserts):
            deleted = super()._apply_documents(change)
        else:
            deleted = self._upsert_in_bulk(change)
        keywords.write_postings(self._db, before, self._keys_after)
        return deleted

    def _upsert_in_bulk(self, change: DocumentChange) -> Deleted:
        """What the shared `_apply_documents` does, in a few statements: the stored documents found
        by one query and replaced one by one (their old chunks are remembered for the carry), each
        run of new ones inserted by one statement, every chunk copied by one. The document rows are
        written in the change's order, as the shared code writes them: the chunk table lists
        documents in the order the table holds them, and the name graph is built in that order."""
        stamp = utc_now()
        deleted = self._withdraw(change, stamp)
        stored = bulk.stored_documents(self._db, change.upserts)
        doc_ids: list[int] = []
        for is_stored, run in itertools.groupby(range(len(change.upserts)), key=stored.__contains__):
            if not is_stored:
                doc_ids += bulk.insert_documents(self._db, [change.upserts[i][:2] for i in run], stamp)
                continue
            for i in run:
                doc, content_hash, _ = change.upserts[i]
                self._replace_document(stored[i][0], doc, content_hash, stamp, deleted)
                doc_ids.append(stored[i][0])
        for at, (doc, _, _) in enumerate(change.upserts):
            if at not in stored or stored[at][1]:  # new, or back after a withdrawal: new to the index
                deleted.created[doc_ids[at]] = doc.title
            deleted.rechunked.add(doc_ids[at])
        bulk.copy_chunks(self._db, change.upserts, doc_ids)
        return deleted

    def _replace_graph(self, graph: GraphRows) -> None:
        bulk.copy_graph(self._db, graph, self._keys_after)

    def _numeric_columns(self, query: str, kinds: str) -> list[np.ndarray]:
        """The shared reads of the chunk columns and the name graph, by binary COPY (columns.py)."""
        return columns.copied(self._db, query, kinds)

    def ensure_vector_index(self, model: str) -> bool:
        """The model's IVFFlat index over `vector::vector(dim)` (cosine), built or outgrown and built
        again (vector_index.py): the column holds vectors of any model, and pgvector indexes only a
        fixed dimension. True if one was built."""
        with self._transaction():
            return vector_index.ensure(self._db, model)

    def reply_cache(self) -> LLMCache:
        """The `llm_cache` table on a connection of its own: each put commits at once."""
        return TableLLMCache(PgDatabase(open_connection(self._path)), self._path, (psycopg.Error,))

    def disk_bytes(self) -> dict[str, int]:
        """The store schema's tables with their indexes and TOAST (`pg_total_relation_size`)."""
        row = self._db.execute("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                               "JOIN pg_namespace n ON n.oid = c.relnamespace "
                               "WHERE n.nspname = current_schema() AND c.relkind = 'r'").fetchone()
        return {"tables": int(row[0])}

    def close(self) -> None:
        self._db.close()


def as_array(vector: object) -> np.ndarray:
    """pgvector's Python type (`Vector`, or a numpy array in older releases) as float32."""
    to_numpy = getattr(vector, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else vector, dtype=np.float32)
