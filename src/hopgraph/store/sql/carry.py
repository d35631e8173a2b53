"""What an index run deletes, kept until its new chunks are in: the deleted chunks with their facts, so
the policy the run passes (ingest/carry.py `carry_facts`) can carry them to new chunks, and the
knowledge-graph rows that cite them, so a graph whose facts only moved is relabelled, not rebuilt.
All of it inside the run's one transaction (store/sql/documents.py `apply`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hopgraph.records.documents import ChunkTable
from hopgraph.records.knowledge import ChunkFacts, NewChunk, OldChunk, Rechunking
from hopgraph.store.base import FactCarrier
from hopgraph.store.sql.tables import GRAPH_BEHIND, UPSERT_META, Database, batches


@dataclass
class Deleted:
    """The chunks a change deleted and what cited them; the documents it withdrew, created and re-chunked."""

    chunks: list[OldChunk] = field(default_factory=list)
    withdrawn: dict[int, str] = field(default_factory=dict)  # document id → title
    created: dict[int, str] = field(default_factory=dict)  # document id → title
    rechunked: set[int] = field(default_factory=set)  # documents whose chunks the change inserted
    entity_sources: list[tuple[int, int]] = field(default_factory=list)  # (entity, deleted chunk)
    # (relation, deleted chunk, date, until, extractor)
    relation_sources: list[tuple[Any, ...]] = field(default_factory=list)

    @property
    def text_hashes(self) -> set[str]:
        return {c.text_hash for c in self.chunks}


def delete_chunks(db: Database, doc_id: int, deleted: Deleted) -> None:
    """A document's chunks go (their facts and the graph rows citing them by cascade), remembered in
    `deleted` first."""
    rows = db.execute("SELECT c.id, c.text_hash, f.payload FROM chunks c LEFT JOIN facts f ON f.chunk_id = c.id "
                      "WHERE c.doc_id = ? ORDER BY c.ord, c.id, f.extractor", (doc_id,)).fetchall()
    facts: dict[tuple[int, str], list[ChunkFacts]] = {}
    for chunk_id, text_hash, payload in rows:
        found = facts.setdefault((chunk_id, text_hash), [])
        if payload is not None:
            found.append(ChunkFacts.from_json(payload))
    chunks = [OldChunk(chunk_id, doc_id, text_hash, tuple(said)) for (chunk_id, text_hash), said in facts.items()]
    _remember_sources(db, [c.id for c in chunks if c.facts], deleted)
    deleted.chunks += chunks
    db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))


def _remember_sources(db: Database, chunk_ids: list[int], deleted: Deleted) -> None:
    for part, marks in batches(chunk_ids):
        deleted.entity_sources += db.execute(
            f"SELECT entity_id, chunk_id FROM entity_sources WHERE chunk_id IN ({marks})", part).fetchall()
        deleted.relation_sources += db.execute(
            "SELECT relation_id, chunk_id, date, until, extractor FROM relation_sources "
            f"WHERE chunk_id IN ({marks})", part).fetchall()


def carry_facts(db: Database, deleted: Deleted, table: ChunkTable, carry: FactCarrier) -> None:
    """The deleted chunks' facts to the new chunks (`table`: the chunks after the change), by `carry`.
    The graph is marked behind its facts only when they changed; when they only moved, the rows that
    cited the old chunks cite the new ones."""
    if not any(c.facts for c in deleted.chunks):
        return
    inserted = [NewChunk(int(chunk_id), int(doc_id), text_hash, text) for chunk_id, doc_id, text_hash, text
                in zip(table.ids.tolist(), table.doc_ids.tolist(), table.text_hashes, table.texts, strict=True)
                if doc_id in deleted.rechunked]
    carried = carry(Rechunking(deleted.chunks, inserted, deleted.withdrawn, deleted.created))
    db.executemany("INSERT INTO facts (chunk_id, extractor, payload) VALUES (?, ?, ?)",
                   [(f.chunk_id, f.extractor, f.to_json()) for f in carried.facts])
    if carried.moved is None:
        db.execute(UPSERT_META, (GRAPH_BEHIND, "1"))
    else:
        _relabel_sources(db, deleted, carried.moved, {c.id: c.doc_id for c in inserted})


def _relabel_sources(db: Database, deleted: Deleted, moved: dict[int, int], doc_of: dict[int, int]) -> None:
    """The graph's rows cite the new chunks. The community tree hashed the old ones and its reports
    cite them: it goes, as it goes with a rebuilt graph (reports stay: a community whose relations
    cite no moved chunk finds its report again by content hash)."""
    if deleted.relation_sources:
        for table in ("community_members", "communities"):
            db.execute(f"DELETE FROM {table}")
    db.executemany("INSERT INTO entity_sources (entity_id, chunk_id) VALUES (?, ?)",
                   [(entity, moved[chunk]) for entity, chunk in deleted.entity_sources])
    db.executemany("INSERT INTO relation_sources (relation_id, chunk_id, doc_id, date, until, extractor) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   [(relation, moved[chunk], doc_of[moved[chunk]], date, until, extractor)
                    for relation, chunk, date, until, extractor in deleted.relation_sources])


def drop_unused_vectors(db: Database, deleted: Deleted, table: ChunkTable) -> None:
    """Vectors (every model's) of the texts of `deleted` chunks that no chunk of the index (`table`,
    after the change) holds any more."""
    if not deleted.chunks:  # most runs delete nothing: no set of every active text to build
        return
    for part, marks in batches(sorted(deleted.text_hashes - set(table.text_hashes))):
        db.execute(f"DELETE FROM vectors WHERE text_hash IN ({marks})", part)
