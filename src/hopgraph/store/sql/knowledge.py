"""The knowledge-graph tables, shared by the SQL backends: raw facts, entities, relations, merge reviews."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence

from hopgraph.records.dates import readable
from hopgraph.records.documents import utc_now
from hopgraph.records.knowledge import (
    ChunkFacts,
    ChunkText,
    Entity,
    ExtractionFailure,
    KnowledgeGraph,
    MergeCandidate,
    MergeReview,
    Relation,
    Source,
)
from hopgraph.store.sql.tables import GRAPH_BEHIND, GRAPH_GENERATION, UPSERT_META, Tables, batches


class KnowledgeTables(Tables):

    def _graph_behind(self) -> None:
        self._db.execute(UPSERT_META, (GRAPH_BEHIND, "1"))

    def graph_behind_facts(self) -> bool:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (GRAPH_BEHIND,)).fetchone()
        return row is not None and row[0] == "1"

    def save_facts(self, facts: Sequence[ChunkFacts]) -> list[int]:
        """Commit one batch of extraction results (and clear earlier failures of those chunks). The
        chunks withdrawn since they were read (a `remove` beside a running extract) are passed over:
        their ids are returned."""
        if not facts:
            return []
        with self._transaction():
            withdrawn = self._withdrawn_chunks([f.chunk_id for f in facts])
            facts = [f for f in facts if f.chunk_id not in withdrawn]
            self._graph_behind()
            self._db.executemany(
                "INSERT INTO facts (chunk_id, extractor, payload) VALUES (?, ?, ?) "
                "ON CONFLICT (chunk_id, extractor) DO UPDATE SET payload = excluded.payload",
                [(f.chunk_id, f.extractor, f.to_json()) for f in facts])
            self._db.executemany("DELETE FROM extraction_failures WHERE chunk_id = ? AND extractor = ?",
                                 [(f.chunk_id, f.extractor) for f in facts])
        return sorted(withdrawn)

    def _withdrawn_chunks(self, chunk_ids: Sequence[int]) -> set[int]:
        """Which of these chunks are no longer stored (read inside the caller's write transaction)."""
        present: set[int] = set()
        wanted = sorted(set(chunk_ids))
        for part, marks in batches(wanted):
            present.update(row[0] for row in self._db.execute(f"SELECT id FROM chunks WHERE id IN ({marks})", part))
        return set(wanted) - present

    def replace_facts(self, extractor: str, facts: Sequence[ChunkFacts]) -> None:
        """One transaction: this extractor's facts become exactly `facts` (a re-import)."""
        with self._transaction():
            self._graph_behind()
            self._db.execute("DELETE FROM facts WHERE extractor = ?", (extractor,))
            self._db.executemany(
                "INSERT INTO facts (chunk_id, extractor, payload) VALUES (?, ?, ?)",
                [(f.chunk_id, f.extractor, f.to_json()) for f in facts])

    def drop_facts(self, extractors: Sequence[str]) -> None:
        """Forget every fact of these extractors (an older version of an extractor, say)."""
        if not extractors:
            return
        with self._transaction():
            self._graph_behind()
            self._db.executemany("DELETE FROM facts WHERE extractor = ?", [(e,) for e in extractors])

    def extractors(self) -> list[str]:
        return [row[0] for row in self._db.execute("SELECT DISTINCT extractor FROM facts")]

    def has_facts(self) -> bool:
        return self._db.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is not None

    def has_knowledge_graph(self) -> bool:
        return self._db.execute("SELECT 1 FROM entities LIMIT 1").fetchone() is not None

    def record_failures(self, failures: Sequence[ExtractionFailure], extractor: str) -> None:
        """Chunks this extractor could not read: nothing is written for their facts (nor for a chunk
        withdrawn meanwhile)."""
        at = utc_now()
        with self._transaction():
            withdrawn = self._withdrawn_chunks([f.chunk_id for f in failures])
            failures = [f for f in failures if f.chunk_id not in withdrawn]
            self._db.executemany(
                "INSERT INTO extraction_failures (chunk_id, extractor, error, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (chunk_id, extractor) DO UPDATE SET error = excluded.error, at = excluded.at",
                [(f.chunk_id, extractor, f.error, at) for f in failures])

    def failures(self, extractor: str) -> list[ExtractionFailure]:
        return [ExtractionFailure(*row) for row in self._db.execute(
            "SELECT chunk_id, error FROM extraction_failures WHERE extractor = ? ORDER BY chunk_id", (extractor,))]

    def pending_chunks(self, extractor: str) -> list[ChunkText]:
        """Active chunks with no facts from this extractor yet, in id order."""
        return [ChunkText(*row) for row in self._db.execute(
            "SELECT c.id, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "WHERE d.withdrawn_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM facts f WHERE f.chunk_id = c.id AND f.extractor = ?) ORDER BY c.id",
            (extractor,))]

    def unextracted(self, extractor: str, chunk_ids: Sequence[int]) -> list[ChunkText]:
        """Those of these chunks (active ones) with no facts from this extractor yet, in the order given."""
        if not chunk_ids:
            return []
        marks = ", ".join("?" * len(chunk_ids))
        found = dict(self._db.execute(
            f"SELECT c.id, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN ({marks}) "
            "AND d.withdrawn_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM facts f WHERE f.chunk_id = c.id AND f.extractor = ?)", (*chunk_ids, extractor)))
        return [ChunkText(c, found[c]) for c in dict.fromkeys(chunk_ids) if c in found]

    def load_facts(self, extractors: Sequence[str] | None = None) -> list[ChunkFacts]:
        rows = self._db.execute("SELECT payload, extractor FROM facts ORDER BY chunk_id, extractor").fetchall()
        return [ChunkFacts.from_json(payload) for payload, extractor in rows
                if extractors is None or extractor in extractors]

    def replace_knowledge_graph(self, graph: KnowledgeGraph, reviews: Sequence[MergeCandidate]) -> None:
        """One transaction: the graph replaces the previous one; new review candidates are added."""
        with self._transaction():
            # The community tree names entity ids of the old graph: it goes with it (reports stay).
            for table in ("community_members", "communities", "relation_sources", "relations",
                          "entity_sources", "entities"):
                self._db.execute(f"DELETE FROM {table}")
            self._db.execute("DELETE FROM meta WHERE key = ?", (GRAPH_BEHIND,))
            self._db.execute(UPSERT_META, (GRAPH_GENERATION, uuid.uuid4().hex))
            self._db.executemany(
                "INSERT INTO entities (id, name, type, description, aliases) VALUES (?, ?, ?, ?, ?)",
                [(e.id, e.name, e.type, e.description, json.dumps(e.aliases)) for e in graph.entities.values()])
            self._db.executemany("INSERT INTO entity_sources (entity_id, chunk_id) VALUES (?, ?)",
                                 [(e.id, c) for e in graph.entities.values() for c in sorted(e.chunks)])
            self._db.executemany(
                "INSERT INTO relations (id, source, relation, target, description, valid_from, valid_until, "
                "superseded_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.id, r.source, r.relation, r.target, r.description, r.valid_from, r.valid_until, r.superseded_by)
                 for r in graph.relations])
            self._db.executemany(
                "INSERT INTO relation_sources (relation_id, chunk_id, doc_id, date, until, extractor) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(r.id, s.chunk_id, s.doc_id, s.date, s.until, s.extractor)
                 for r in graph.relations for s in r.sources])
            self._db.executemany(
                "INSERT INTO merge_reviews (a, b, type, score) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(m.a, m.b, m.type, m.score) for m in reviews])

    def knowledge_graph(self) -> KnowledgeGraph:
        entities = {row[0]: Entity(row[0], row[1], row[2], row[3], json.loads(row[4]))
                    for row in self._db.execute("SELECT id, name, type, description, aliases FROM entities")}
        for entity_id, chunk_id in self._db.execute("SELECT entity_id, chunk_id FROM entity_sources"):
            entities[entity_id].chunks.add(chunk_id)
        # `readable`: a graph built before dates were checked may hold one no calendar has; the next
        # rebuild undates it with a warning (kg/build.py), until then it reads as undated here too.
        relations = {row[0]: Relation(*row[:5], valid_from=readable(row[5]), valid_until=readable(row[6]),
                                      superseded_by=row[7])
                     for row in self._db.execute("SELECT id, source, relation, target, description, valid_from, "
                                                 "valid_until, superseded_by FROM relations ORDER BY id")}
        for relation_id, chunk_id, doc_id, date, until, extractor in self._db.execute(
                "SELECT relation_id, chunk_id, doc_id, date, until, extractor FROM relation_sources "
                "ORDER BY relation_id, chunk_id"):
            relations[relation_id].sources.append(Source(chunk_id, doc_id, readable(date), readable(until), extractor))
        return KnowledgeGraph(entities, list(relations.values()))

    def merge_reviews(self, status: str | None = "pending") -> list[MergeReview]:
        query = "SELECT id, a, b, type, score, status FROM merge_reviews"
        rows = self._db.execute(query + (" WHERE status = ?" if status else "") + " ORDER BY score DESC, id",
                                (status,) if status else ())
        return [MergeReview(*row) for row in rows]

    def decide_merge(self, review_id: int, accept: bool) -> bool:
        with self._transaction():
            cursor = self._db.execute("UPDATE merge_reviews SET status = ? WHERE id = ?",
                                      ("accepted" if accept else "rejected", review_id))
        return cursor.rowcount == 1

    def merge_decisions(self) -> dict[tuple[str, str], bool]:
        return {(a, b): status == "accepted" for a, b, status in self._db.execute(
            "SELECT a, b, status FROM merge_reviews WHERE status != 'pending'")}

