-- The keyword index (schema version 2, store/postgres/keywords.py): BM25 over the embedded store's
-- own terms (text/bm25.py `keyword_terms`), written by Python at index time, read by one statement
-- per question. Run by schema.sql's creation and by the version 1 → 2 migration.
-- Each term of each chunk: its count, the chunk's length in terms, and `impact`, the BM25 tf part at
-- the mean length of its write: the order in which a question reads a common term's postings.
CREATE TABLE postings (
    term     TEXT NOT NULL,
    chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    tf       INTEGER NOT NULL,
    length   INTEGER NOT NULL,
    impact   REAL NOT NULL
);
-- A question reads each term's best postings from the front of this index (INCLUDE: without the
-- table); equal impacts in chunk order, so a cut inside a run of them is the same on every store.
CREATE INDEX postings_impact ON postings(term, impact DESC, chunk_id) INCLUDE (tf, length);
-- A candidate's postings of the question's terms, for its exact score; a chunk's deletion finds its postings.
CREATE INDEX postings_chunk ON postings(chunk_id, term) INCLUDE (tf, length);
-- How many chunks hold each term (BM25's document frequency), and how many chunks and terms there are.
CREATE TABLE keyword_terms (term TEXT PRIMARY KEY, df BIGINT NOT NULL);
CREATE TABLE chunk_stats (chunks BIGINT NOT NULL, words BIGINT NOT NULL);
INSERT INTO chunk_stats VALUES (0, 0);
-- Writes add to the counts (keywords.py); deletions, whatever their path (a removed or replaced
-- document's chunks cascade to their postings), take away by these statement-level triggers.
CREATE FUNCTION hopgraph_postings_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE keyword_terms k SET df = k.df - g.n
    FROM (SELECT term, count(*) AS n FROM gone GROUP BY term) g WHERE k.term = g.term;
    DELETE FROM keyword_terms WHERE df <= 0 AND term IN (SELECT term FROM gone);
    UPDATE chunk_stats SET words = words - (SELECT coalesce(sum(tf), 0) FROM gone);
    RETURN NULL;
END $$;
CREATE TRIGGER postings_deleted AFTER DELETE ON postings REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION hopgraph_postings_deleted();
CREATE FUNCTION hopgraph_chunks_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE chunk_stats SET chunks = chunks - (SELECT count(*) FROM gone);
    RETURN NULL;
END $$;
CREATE TRIGGER chunks_deleted AFTER DELETE ON chunks REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION hopgraph_chunks_deleted();
