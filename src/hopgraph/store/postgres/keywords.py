"""The keyword index inside PostgreSQL: BM25 over the embedded store's own terms, ranked in one statement.

The terms are text/bm25.py's `keyword_terms`, the very tokens bm25s indexes in process (lower-cased
words, bm25s's stopwords, PyStemmer's English stems), so PostgreSQL ranks what the embedded store
ranks. They are computed in Python: an index run reads its new chunks' texts back, counts each
one's terms and COPYs the postings (keywords.sql), and adds to two counts, the chunks and terms
(`chunk_stats`) and each term's document frequency (`keyword_terms`); deletions take away by
triggers. A question's terms are passed as a `text[]`.

The score is the embedded one — Lucene BM25, k1 1.5, b 0.75: idf ln(1 + (N − df + 0.5)/(df + 0.5))
times tf/(tf + k1·(1 − b + b·length/mean length)), a term asked twice counted twice (bm25s sums a
query's tokens) — with the work bounded per term, not grown with the store: each question term's
`per_term` best postings are read from the front of the (term, impact) index and summed, and the
`RESCORED` best chunks by those partial sums are scored again exactly, from their own postings of
every question term (the (chunk, term) index). A posting's `impact` is the tf part at the mean
length of the run that wrote it (the mean drifts as the store grows; the score uses today's).
Exact when every question term is in at most `per_term` chunks; otherwise a chunk that is in no
term's best postings is missed (docs/BENCHMARKS.md, issue 24, measures what that costs and why
these bounds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import nullcontext

from hopgraph.store.postgres.bulk import keys_built_after
from hopgraph.store.postgres.connection import PgDatabase
from hopgraph.text.bm25 import keyword_terms

K1, B = 1.5, 0.75  # bm25s's defaults, which text/bm25.py's KeywordIndex uses
POSTINGS_PER_TERM = 2_000  # with RESCORED 1,000, at 100k chunks: 0.99 of the exact top 10 (docs/BENCHMARKS.md)
RESCORED = 1_000  # the best candidates by their partial sums, scored again over all of their terms
BATCH_CHUNKS = 20_000  # chunk texts read, counted and COPYed at a time

_TF_PART = f"p.tf / (p.tf + {K1} * ({1 - B} + {B} * p.length / s.mean))"  # float8 throughout
RANK = f"""
    WITH stats AS (SELECT chunks::float8 AS n, words::float8 / greatest(chunks, 1) AS mean FROM chunk_stats LIMIT 1),
    asked AS (SELECT term, count(*) AS times FROM unnest(%(terms)s::text[]) AS term GROUP BY term),
    weighed AS (SELECT a.term, a.times * ln(1 + (s.n - k.df + 0.5) / (k.df + 0.5)) AS weight
                FROM asked a JOIN keyword_terms k USING (term), stats s),
    read AS (SELECT p.chunk_id, w.weight * {_TF_PART} AS part
             FROM weighed w CROSS JOIN LATERAL (SELECT chunk_id, tf, length FROM postings p WHERE p.term = w.term
                                                ORDER BY p.impact DESC, p.chunk_id LIMIT %(per_term)s) p, stats s),
    candidates AS (SELECT chunk_id FROM read GROUP BY chunk_id ORDER BY sum(part) DESC, chunk_id LIMIT %(rescored)s)
    SELECT c.chunk_id, x.score FROM candidates c CROSS JOIN LATERAL (
        SELECT sum(w.weight * {_TF_PART}) AS score
        FROM weighed w JOIN postings p ON p.chunk_id = c.chunk_id AND p.term = w.term, stats s) x
    ORDER BY x.score DESC, c.chunk_id LIMIT %(top)s"""


def rank(db: PgDatabase, terms: Sequence[str], top: int, per_term: int = POSTINGS_PER_TERM) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the `top` best chunks for the question's terms, best first (ties by
    id); [] for no terms (a question of stopwords) or none the store holds."""
    if not terms:
        return []
    rows = db.connection.execute(RANK, {"terms": list(terms), "top": top, "per_term": per_term,
                                        "rescored": max(top, RESCORED)}).fetchall()
    return [(int(chunk), float(score)) for chunk, score in rows]


def write_postings(db: PgDatabase, after: int, keys_after: bool) -> None:
    """The postings of the chunks above id `after` (the new ones: ids only grow), their texts read
    back and counted in Python batch by batch, each batch COPYed; then the counts they add to."""
    stored_chunks, stored_words = db.execute("SELECT chunks, words FROM chunk_stats").fetchone()
    mean = stored_words / stored_chunks if stored_chunks else None
    added = _Added()
    with keys_built_after(db, ["postings"]) if keys_after else nullcontext():
        for batch in _new_chunks(db, after):
            counted = [(chunk_id, Counter(terms), len(terms)) for chunk_id, terms in batch]
            if mean is None:  # a first load: the mean length of its first batch
                mean = sum(length for _, _, length in counted) / len(counted)
            db.copy("postings", "term, chunk_id, tf, length, impact", added.rows(counted, max(mean, 1.0)))
    db.execute("UPDATE chunk_stats SET chunks = chunks + ?, words = words + ?", (added.chunks, added.words))
    if added.df:
        db.execute("INSERT INTO keyword_terms (term, df) SELECT * FROM unnest(?::text[], ?::bigint[]) "
                   "ON CONFLICT (term) DO UPDATE SET df = keyword_terms.df + excluded.df",
                   (list(added.df), list(added.df.values())))


def _new_chunks(db: PgDatabase, after: int) -> Iterator[list[tuple[int, list[str]]]]:
    """(chunk id, its terms) of the chunks above `after`, in batches of BATCH_CHUNKS by id (a first
    load's texts are never all held at once; the connection is free between batches for their COPY)."""
    while True:
        rows = db.execute("SELECT id, text FROM chunks WHERE id > ? ORDER BY id LIMIT ?",
                          (after, BATCH_CHUNKS)).fetchall()
        if not rows:
            return
        yield [(int(chunk_id), keyword_terms(text)) for chunk_id, text in rows]
        after = rows[-1][0]


class _Added:
    """What a write adds, totted up while its rows stream past."""

    def __init__(self) -> None:
        self.chunks = self.words = 0
        self.df: Counter[str] = Counter()

    def rows(self, counted: Iterable[tuple[int, Counter[str], int]], mean: float) -> Iterator[tuple]:
        for chunk_id, counts, length in counted:
            self.chunks += 1
            self.words += length
            self.df.update(counts.keys())
            norm = K1 * (1 - B + B * length / mean)
            for term, tf in counts.items():
                yield term, chunk_id, tf, length, tf / (tf + norm)
