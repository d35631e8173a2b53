"""Retrieval that runs inside PostgreSQL, each as one SQL statement.

- `vector_links`: the reference lab's cheap graph in one query — the nearest chunks by the HNSW
  index (step 0), then every chunk their links point at (step 1), ordered by step and by each
  chunk's own distance to the question.
- `keyword_ranks`: full-text search over a stemmed `tsvector` column, ranked by BM25 computed in
  SQL (or PostgreSQL's `ts_rank_cd`); bench/parity.py measures both against the embedded BM25.
- `relation_routes`: the knowledge graph's path query as `WITH RECURSIVE`: a node never repeats
  within a route (cycle protection), routes stop at `max_hops`, shortest first.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from hopgraph.store.postgres.connection import PgDatabase, psycopg

# Candidates the HNSW scan keeps (pgvector's `hnsw.ef_search`, default 40) per chunk asked for:
# vectors of withdrawn chunks stay cached in `vectors` and are dropped by the join, so the scan
# must look further than the seeds it returns. Measured at 100k chunks, 10 seeds
# (bench/hnsw_ef_search.py): ef 80 → recall@10 0.946, 6.0 ms; 120 → 0.974; 160 → 0.984, 9.0 ms;
# 240 → 0.990, 11.4 ms.
EF_PER_SEED = 16
MIN_EF_SEARCH = 100
MAX_EF_SEARCH = 1000  # pgvector's upper bound
EF_PER_NEAREST = 4  # a ranking's depth (100 rows) × 4: ef_search 400 (docs/BENCHMARKS.md, issue 24)


# The question's stems as an OR query (any word may match; the ranking weighs them).
_ANY_WORD = ("(SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery "
             "FROM unnest(to_tsvector('english', %(text)s)))")
KEYWORD_RANKINGS = {
    "bm25": """
        WITH terms AS (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', %(text)s))),
        stats AS (SELECT chunks::float8 AS n, greatest(words::float8 / greatest(chunks, 1), 1) AS mean_words
                  FROM chunk_stats),
        frequency AS (SELECT p.term, count(*) AS df FROM postings p JOIN terms USING (term) GROUP BY p.term)
        SELECT p.chunk_id, sum(ln(1 + (s.n - f.df + 0.5) / (f.df + 0.5))
                               * p.tf / (p.tf + 1.5 * (0.25 + 0.75 * p.length / s.mean_words))) AS score
        FROM postings p JOIN frequency f USING (term), stats s
        GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT %(top)s""",
    # The same BM25 without the postings table: the chunks holding any question word are found by
    # the `words` GIN index, and each one's counts of those words read from its own `tsvector`. A
    # word's document frequency is the number of found chunks holding it (every chunk holding it is
    # found), so the scores are the "bm25" ones; the work grows with the found chunks' words.
    "bm25_matched": f"""
        WITH terms AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', %(text)s))),
        found AS (SELECT c.id, w.lexeme, array_length(w.positions, 1) AS tf, c.n_words
                  FROM chunks c, unnest(c.words) w
                  WHERE c.words @@ {_ANY_WORD} AND w.lexeme IN (SELECT lexeme FROM terms)),
        frequency AS (SELECT lexeme, count(*) AS df FROM found GROUP BY lexeme),
        stats AS (SELECT chunks::float8 AS n, greatest(words::float8 / greatest(chunks, 1), 1) AS mean_words
                  FROM chunk_stats)
        SELECT f.id, sum(ln(1 + (s.n - q.df + 0.5) / (q.df + 0.5))
                         * f.tf / (f.tf + 1.5 * (0.25 + 0.75 * f.n_words / s.mean_words))) AS score
        FROM found f JOIN frequency q USING (lexeme), stats s
        GROUP BY f.id ORDER BY score DESC, f.id LIMIT %(top)s""",
    "ts_rank_cd": f"""
        SELECT c.id, ts_rank_cd(c.words, {_ANY_WORD}) AS score FROM chunks c
        WHERE c.words @@ {_ANY_WORD} ORDER BY score DESC, c.id LIMIT %(top)s""",
}


class SqlSearch:
    """Mixed into PostgresStore: searches that never leave the database."""

    _db: PgDatabase

    def vector_links(self, query: np.ndarray, model: str, seeds: int, top: int,
                     ef_search: int | None = None) -> list[tuple[int, int, float]]:
        """(chunk id, step, cosine distance) of the `seeds` nearest chunks (step 0) and the chunks
        their links point at (step 1), ordered by step then distance, at most `top` rows.
        `ef_search` overrides the HNSW scan's breadth (bench/hnsw_ef_search.py sweeps it)."""
        dimensions = int(np.asarray(query).shape[-1])
        typed = f"vector::vector({dimensions})"
        model_literal = psycopg.sql.Literal(model).as_string(self._db.connection)
        # The question's vector is a parameter in each ORDER BY, not a CTE column: only
        # `indexed expression <=> constant` lets the planner walk the HNSW index.
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
        with self._db.connection.transaction():
            breadth = ef_search or max(MIN_EF_SEARCH, EF_PER_SEED * seeds)
            self._db.connection.execute(f"SET LOCAL hnsw.ef_search = {int(breadth)}")
            rows = self._db.connection.execute(
                statement, {"q": np.asarray(query, dtype=np.float32), "seeds": seeds, "top": top}).fetchall()
        return [(int(chunk), int(step), float(distance)) for chunk, step, distance in rows]

    def nearest_chunks(self, query: np.ndarray, model: str, k: int, exact: bool) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the k chunks nearest the question, best first (ties by id).

        `exact`: every vector of the model scanned (ordered by `vector <=> q`, which no index
        matches); else the model's HNSW index walked with `hnsw.ef_search` = max(MIN_EF_SEARCH,
        EF_PER_NEAREST × k), at most pgvector's 1000 (retrieval/database_index.py says when each)."""
        dimensions = int(np.asarray(query).shape[-1])
        model_literal = psycopg.sql.Literal(model).as_string(self._db.connection)
        # Only `indexed expression <=> constant` walks the HNSW index; the untyped column does not.
        typed = "" if exact else f"({dimensions})"
        distance = f"v.vector{'' if exact else '::vector' + typed} <=> %(q)s::vector{typed}"
        statement = f"""
            SELECT c.id, {distance} AS distance FROM vectors v JOIN chunks c ON c.text_hash = v.text_hash
            WHERE v.model = {model_literal} ORDER BY {distance}{", c.id" if exact else ""} LIMIT %(k)s"""
        with self._db.connection.transaction():
            if not exact:
                breadth = min(MAX_EF_SEARCH, max(MIN_EF_SEARCH, EF_PER_NEAREST * k))
                self._db.connection.execute(f"SET LOCAL hnsw.ef_search = {int(breadth)}")
            rows = self._db.connection.execute(
                statement, {"q": np.asarray(query, dtype=np.float32), "k": k}).fetchall()
        return [(int(chunk), 1.0 - float(d)) for chunk, d in rows]

    def keyword_ranks(self, question: str, top: int, ranking: str = "bm25") -> list[tuple[int, float]]:
        """(chunk id, score) of the chunks holding any of the question's words, best first.

        "bm25": Okapi BM25 as the embedded store computes it (Lucene: k1 1.5, b 0.75, no (k1 + 1)) over
        PostgreSQL's English stems, from the `postings` table (an inverted index each index run
        writes: the work grows with the postings of the question's words, not with the store); document
        count and mean length from `chunk_stats`. "ts_rank_cd": PostgreSQL's own cover-density rank."""
        if ranking not in KEYWORD_RANKINGS:
            raise ValueError(f"ranking must be one of {', '.join(KEYWORD_RANKINGS)}, not {ranking!r}")
        rows = self._db.connection.execute(KEYWORD_RANKINGS[ranking], {"text": question, "top": top}).fetchall()
        return [(int(chunk), float(score)) for chunk, score in rows]

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
