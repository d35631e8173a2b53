"""Retrieval that runs inside PostgreSQL, each as one SQL statement.

- `vector_links`: the reference lab's cheap graph in one query — the nearest chunks by the IVF
  index (step 0), then every chunk their links point at (step 1), ordered by step and by each
  chunk's own distance to the question.
- `keyword_ranks`: BM25 over the keyword index of the embedded store's own terms (keywords.py),
  each question term's postings read best first up to a bound.
- `relation_routes`: the knowledge graph's path query as `WITH RECURSIVE`: a node never repeats
  within a route (cycle protection), routes stop at `max_hops`, shortest first.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from hopgraph.store.postgres import keywords, vector_index
from hopgraph.store.postgres.connection import PgDatabase, psycopg

# A store written before the IVF index (vector_index.py) keeps its HNSW index until its next index
# run: its scans are given the breadth that index was served with (4 × the rows asked for, 100–1000).
MIN_EF_SEARCH = 100
MAX_EF_SEARCH = 1000  # pgvector's upper bound
EF_PER_NEAREST = 4


class SqlSearch:
    """Mixed into PostgresStore: searches that never leave the database."""

    _db: PgDatabase

    def vector_links(self, query: np.ndarray, model: str, seeds: int, top: int,
                     probes: int | None = None) -> list[tuple[int, int, float]]:
        """(chunk id, step, cosine distance) of the `seeds` nearest chunks (step 0) and the chunks
        their links point at (step 1), ordered by step then distance, at most `top` rows.
        `probes` overrides the IVF scan's breadth (vector_index.py `probes_for` by default)."""
        dimensions = int(np.asarray(query).shape[-1])
        typed = f"vector::vector({dimensions})"
        model_literal = psycopg.sql.Literal(model).as_string(self._db.connection)
        # The question's vector is a parameter in each ORDER BY, not a CTE column: only
        # `indexed expression <=> constant` lets the planner scan the vector index.
        q = f"%(q)s::vector({dimensions})"
        statement = f"""
            WITH seeds AS (
                SELECT c.id, v.{typed} <=> {q} AS distance
                FROM vectors v JOIN chunks c ON c.text_hash = v.text_hash
                WHERE v.model = {model_literal}
                ORDER BY v.{typed} <=> {q}
                LIMIT %(seeds)s),
            hops AS (
                SELECT DISTINCT l.target_chunk AS id FROM seeds s JOIN links l ON l.source_chunk = s.id
                WHERE l.target_chunk NOT IN (SELECT id FROM seeds))
            SELECT id, 0 AS step, distance FROM seeds
            UNION ALL
            SELECT h.id, 1, v.{typed} <=> {q}
            FROM hops h JOIN chunks c ON c.id = h.id
                 JOIN vectors v ON v.text_hash = c.text_hash AND v.model = {model_literal}
            ORDER BY step, distance, id
            LIMIT %(top)s"""
        with self._db.transaction():
            self._set_breadth(model, seeds, probes)
            rows = self._db.connection.execute(
                statement, {"q": np.asarray(query, dtype=np.float32), "seeds": seeds, "top": top}).fetchall()
        return [(int(chunk), int(step), float(distance)) for chunk, step, distance in rows]

    def nearest_chunks(self, query: np.ndarray, model: str, k: int, exact: bool) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the k chunks nearest the question, best first (ties by id).

        `exact`: every vector of the model scanned (ordered by `vector <=> q`, which no index
        matches); else the model's IVF index, √lists of its lists scanned (vector_index.py;
        retrieval/database_index.py says when each)."""
        dimensions = int(np.asarray(query).shape[-1])
        model_literal = psycopg.sql.Literal(model).as_string(self._db.connection)
        # Only `indexed expression <=> constant` scans the vector index; the untyped column does not.
        typed = "" if exact else f"({dimensions})"
        distance = f"v.vector{'' if exact else '::vector' + typed} <=> %(q)s::vector{typed}"
        statement = f"""
            SELECT c.id, {distance} AS distance FROM vectors v JOIN chunks c ON c.text_hash = v.text_hash
            WHERE v.model = {model_literal} ORDER BY {distance}{", c.id" if exact else ""} LIMIT %(k)s"""
        with self._db.transaction():
            if not exact:
                self._set_breadth(model, k)
            rows = self._db.connection.execute(
                statement, {"q": np.asarray(query, dtype=np.float32), "k": k}).fetchall()
        return [(int(chunk), 1.0 - float(d)) for chunk, d in rows]

    def _set_breadth(self, model: str, k: int, probes: int | None = None) -> None:
        """How far this transaction's vector scan looks: the IVF index's probes (read from its name,
        so a rebuild by the writer is followed at once), and an older store's HNSW breadth."""
        probes = probes or vector_index.probes_now(self._db, model)
        ef_search = min(MAX_EF_SEARCH, max(MIN_EF_SEARCH, EF_PER_NEAREST * k))
        self._db.connection.execute(f"SET LOCAL ivfflat.probes = {int(probes)}")
        self._db.connection.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")

    def keyword_ranks(self, terms: Sequence[str], top: int,
                      per_term: int = keywords.POSTINGS_PER_TERM) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the `top` chunks best matching the question's terms (text/bm25.py
        `keyword_terms`), best first: the embedded store's scores, over each term's `per_term` best
        postings (exact for a term in fewer chunks; keywords.py)."""
        return keywords.rank(self._db, terms, top, per_term)

    def relation_routes(self, start: int, senses: dict[str, str], direction: str, max_hops: int,
                        max_paths: int, allowed: Collection[int] | None = None,
                        end_type: str | None = None) -> list[list[int]]:
        """Routes of relation ids from `start`, shortest first (then by relation ids), each a walk
        that takes a relation followed "forward" against its arrow when walking "in" (u → node
        leads from node to u) and with it when walking "out"; "reverse" the other way round.
        `allowed`: only these relation ids (those that hold on a date), None for all; `end_type`:
        only routes whose far end has this type (shorter routes are still walked through)."""
        forward = [r for r, way in senses.items() if way == "forward"]
        reverse = [r for r, way in senses.items() if way == "reverse"]
        near, far = ("target", "source") if direction == "in" else ("source", "target")
        kept = "" if allowed is None else "AND id = ANY(%(allowed)s)"
        rows = self._db.connection.execute(
            f"""WITH RECURSIVE steps AS (
                    SELECT id, {near} AS near, {far} AS far FROM relations
                    WHERE relation = ANY(%(forward)s) {kept}
                    UNION ALL
                    SELECT id, {far}, {near} FROM relations WHERE relation = ANY(%(reverse)s) {kept}),
                walk AS (
                    SELECT %(start)s::bigint AS node, ARRAY[]::bigint[] AS route,
                           ARRAY[%(start)s::bigint] AS visited, 0 AS depth
                    UNION ALL
                    SELECT s.far, w.route || s.id, w.visited || s.far, w.depth + 1
                    FROM walk w JOIN steps s ON s.near = w.node
                    WHERE w.depth < %(max_hops)s AND NOT s.far = ANY(w.visited))
                SELECT w.route FROM walk w JOIN entities e ON e.id = w.node
                WHERE w.depth > 0 AND (%(end_type)s::text IS NULL OR e.type = %(end_type)s::text)
                ORDER BY w.depth, w.route LIMIT %(max_paths)s""",
            {"forward": forward, "reverse": reverse, "start": start, "max_hops": max_hops,
             "max_paths": max_paths, "allowed": list(allowed or []), "end_type": end_type}).fetchall()
        return [[int(r) for r in route] for (route,) in rows]
