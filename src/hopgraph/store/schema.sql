-- hopgraph's embedded schema (SQLite). One file holds the whole index.
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
