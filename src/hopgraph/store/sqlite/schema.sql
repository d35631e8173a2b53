-- hopgraph's embedded schema (SQLite), version 1: one file holds the whole index. Later versions
-- change it only through migrations.py (version 2: chunks.page, documents.title_source).
CREATE TABLE IF NOT EXISTS documents (
    id           INTEGER PRIMARY KEY,
    source       TEXT NOT NULL,
    title        TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    added_at     TEXT NOT NULL,
    withdrawn_at TEXT,
    UNIQUE (source, title)
);
CREATE TABLE IF NOT EXISTS chunks (
    id        INTEGER PRIMARY KEY,
    doc_id    INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ord       INTEGER NOT NULL,
    text      TEXT NOT NULL,
    n_tokens  INTEGER NOT NULL,
    text_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
-- Embeddings keyed by (text hash, model): an unchanged chunk is never embedded twice, and a run
-- that was interrupted resumes from the vectors it had already committed.
CREATE TABLE IF NOT EXISTS vectors (
    text_hash TEXT NOT NULL,
    model     TEXT NOT NULL,
    vector    BLOB NOT NULL,
    PRIMARY KEY (text_hash, model)
);
CREATE TABLE IF NOT EXISTS names (
    id       INTEGER PRIMARY KEY,
    surface  TEXT NOT NULL,
    kind     TEXT NOT NULL,
    doc_id   INTEGER REFERENCES documents(id) ON DELETE CASCADE,
    filtered TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS mentions (
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    name_id  INTEGER NOT NULL REFERENCES names(id) ON DELETE CASCADE,
    PRIMARY KEY (chunk_id, name_id)
);
CREATE TABLE IF NOT EXISTS links (
    source_chunk INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    target_chunk INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    name_id      INTEGER NOT NULL REFERENCES names(id) ON DELETE CASCADE,
    PRIMARY KEY (source_chunk, target_chunk)
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id          INTEGER PRIMARY KEY,
    command     TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    stats       TEXT NOT NULL
);
-- Knowledge graph. Raw facts are kept per (chunk, extractor): a re-run skips finished chunks, and
-- the graph below is rebuilt from them after resolution. Deleting a chunk deletes its facts.
CREATE TABLE IF NOT EXISTS facts (
    chunk_id  INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    extractor TEXT NOT NULL,
    payload   TEXT NOT NULL,
    PRIMARY KEY (chunk_id, extractor)
);
CREATE TABLE IF NOT EXISTS extraction_failures (
    chunk_id  INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    extractor TEXT NOT NULL,
    error     TEXT NOT NULL,
    at        TEXT NOT NULL,
    PRIMARY KEY (chunk_id, extractor)
);
CREATE TABLE IF NOT EXISTS entities (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    aliases     TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS entity_sources (
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    chunk_id  INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    PRIMARY KEY (entity_id, chunk_id)
);
CREATE TABLE IF NOT EXISTS relations (
    id          INTEGER PRIMARY KEY,
    source      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    relation    TEXT NOT NULL,
    target      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    description TEXT NOT NULL DEFAULT '',
    valid_from  TEXT,
    valid_until TEXT
);
CREATE TABLE IF NOT EXISTS relation_sources (
    relation_id INTEGER NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
    chunk_id    INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    doc_id      INTEGER NOT NULL,
    date        TEXT,
    until       TEXT,
    PRIMARY KEY (relation_id, chunk_id)
);
-- Merges below the confidence bound wait here for a person: pending, accepted or rejected.
CREATE TABLE IF NOT EXISTS merge_reviews (
    id     INTEGER PRIMARY KEY,
    a      TEXT NOT NULL,
    b      TEXT NOT NULL,
    type   TEXT NOT NULL,
    score  REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    UNIQUE (a, b, type)
);
-- Communities of the current knowledge graph (rebuilt with it: entity ids change on every build).
-- Reports outlive them, keyed by the community's content hash and the writer (extractive or a
-- model): an update rebuilds the tree, and every community whose content did not change finds
-- its report again instead of paying for a new one.
CREATE TABLE IF NOT EXISTS communities (
    id     INTEGER PRIMARY KEY,
    level  INTEGER NOT NULL,
    parent INTEGER REFERENCES communities(id) ON DELETE CASCADE,
    hash   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS community_members (
    community_id INTEGER NOT NULL REFERENCES communities(id) ON DELETE CASCADE,
    entity_id    INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    PRIMARY KEY (community_id, entity_id)
);
CREATE TABLE IF NOT EXISTS community_reports (
    hash    TEXT NOT NULL,
    model   TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (hash, model)
);
-- Validated LLM replies, keyed by everything that decides the reply (llm/cache.py `cache_key`),
-- written on a connection of their own so a paid reply survives whatever happens to the run.
CREATE TABLE IF NOT EXISTS llm_cache (
    key        TEXT PRIMARY KEY,
    model      TEXT NOT NULL,
    response   TEXT NOT NULL,
    tokens_in  INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
