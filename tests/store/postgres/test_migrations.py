"""An older PostgreSQL store opens: version 1 (keywords over PostgreSQL's own full text, the name
graph with foreign keys) becomes the current version in one transaction — the keyword index of the
embedded store's terms, its postings written from the chunk texts (2), and the name graph without
its foreign keys (3)."""

from __future__ import annotations

import psycopg
import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.store import open_store
from hopgraph.store.postgres import keywords
from hopgraph.store.postgres.connection import SCHEMA_VERSION

from .test_store import unindexed_foreign_keys

# What version 1's schema.sql had instead of keywords.sql, as it had it.
VERSION_1 = """
DROP TABLE postings, keyword_terms, chunk_stats;
DROP TRIGGER chunks_deleted ON chunks;
DROP FUNCTION hopgraph_postings_deleted(), hopgraph_chunks_deleted();
CREATE FUNCTION hopgraph_word_count(tsvector) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
    'SELECT coalesce(sum(array_length(positions, 1)), 0)::integer FROM unnest($1)';
ALTER TABLE chunks ADD COLUMN words tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    ADD COLUMN n_words integer GENERATED ALWAYS AS (hopgraph_word_count(to_tsvector('english', text))) STORED;
CREATE INDEX chunks_words ON chunks USING gin(words);
DROP INDEX names_doc, entity_sources_chunk, relation_sources_chunk, communities_parent, community_members_entity;
ALTER TABLE mentions ADD FOREIGN KEY (chunk_id) REFERENCES chunks(id) ON DELETE CASCADE,
    ADD FOREIGN KEY (name_id) REFERENCES names(id) ON DELETE CASCADE;
ALTER TABLE links ADD FOREIGN KEY (source_chunk) REFERENCES chunks(id) ON DELETE CASCADE,
    ADD FOREIGN KEY (target_chunk) REFERENCES chunks(id) ON DELETE CASCADE,
    ADD FOREIGN KEY (name_id) REFERENCES names(id) ON DELETE CASCADE;
ALTER TABLE abouts ADD FOREIGN KEY (chunk_id) REFERENCES chunks(id) ON DELETE CASCADE,
    ADD FOREIGN KEY (name_id) REFERENCES names(id) ON DELETE CASCADE;
CREATE TABLE postings (
    term     TEXT NOT NULL,
    chunk_id BIGINT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    tf       INTEGER NOT NULL,
    length   INTEGER NOT NULL,
    PRIMARY KEY (term, chunk_id)
);
CREATE INDEX postings_chunk ON postings(chunk_id);
CREATE TABLE chunk_stats (chunks BIGINT NOT NULL, words BIGINT NOT NULL);
INSERT INTO postings (term, chunk_id, tf, length)
    SELECT w.lexeme, c.id, array_length(w.positions, 1), c.n_words FROM chunks c, unnest(c.words) w;
INSERT INTO chunk_stats SELECT count(*), coalesce(sum(n_words), 0) FROM chunks;
UPDATE hopgraph_schema SET version = 1;
"""


def keyword_state(url: str) -> tuple:
    with psycopg.connect(url) as db:
        return tuple(db.execute(sql).fetchall() for sql in (
            "SELECT term, tf, length, impact FROM postings p JOIN chunks c ON c.id = p.chunk_id "
            "ORDER BY c.text_hash, term",
            "SELECT term, df FROM keyword_terms ORDER BY term", "SELECT chunks, words FROM chunk_stats"))


def columns(url: str, table: str) -> set[str]:
    with psycopg.connect(url) as db:
        return {r[0] for r in db.execute("SELECT column_name FROM information_schema.columns "
                                         "WHERE table_schema = current_schema() AND table_name = %s", (table,))}


@pytest.fixture
def version_1(pg_url: str) -> str:
    """The tiny corpus indexed, then the store put back into version 1's shape."""
    hg = HopGraph(pg_url, Settings(search_in="snapshot"), embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    hg.close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute(VERSION_1)
    return pg_url


def test_a_version_1_store_opens_migrated_with_the_postings_of_a_new_store(version_1: str) -> None:
    assert SCHEMA_VERSION == 3 and "words" in columns(version_1, "chunks") and graph_keys(version_1)
    hg = HopGraph(version_1, Settings(search_in="snapshot"), embedder=BagOfWordsEmbedder())  # opening migrates
    index = hg.search_index
    scores = index.keyword.scores("film producer")
    expected = sorted(((int(index.table.ids[r]), float(scores[r])) for r in scores.nonzero()[0]),
                      key=lambda hit: (-hit[1], hit[0]))
    in_sql = hg.store.keyword_ranks(["film", "produc"], 10)
    hg.close()
    assert expected and [c for c, _ in in_sql] == [c for c, _ in expected]  # the embedded ranking
    assert [s for _, s in in_sql] == pytest.approx([s for _, s in expected], rel=1e-5)
    assert {"words", "n_words"}.isdisjoint(columns(version_1, "chunks"))
    migrated = keyword_state(version_1)
    with psycopg.connect(version_1) as db:
        assert db.execute("SELECT version FROM hopgraph_schema").fetchone()[0] == 3
        assert db.execute("SELECT count(*) FROM pg_proc WHERE proname = 'hopgraph_word_count'").fetchone()[0] == 0
        assert unindexed_foreign_keys(db) == []  # the indexes version 1 lacked were made
        db.execute("DELETE FROM documents")  # the same corpus written afresh by version 2's own code
    hg = HopGraph(version_1, Settings(search_in="snapshot"), embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    hg.close()
    assert keyword_state(version_1) == migrated and migrated[0]
    assert graph_keys(version_1) == []


def graph_keys(url: str) -> list[str]:
    """The foreign keys of the name graph's rows (version 3 has none)."""
    with psycopg.connect(url) as db:
        return [r[0] for r in db.execute("SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid = "
                                         "ANY(ARRAY['mentions', 'links', 'abouts']::regclass[])")]


def test_a_failed_migration_leaves_version_1_as_it_was(version_1: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = columns(version_1, "chunks"), columns(version_1, "postings")

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("killed while writing the postings")

    monkeypatch.setattr(keywords, "write_postings", broken)
    with pytest.raises(RuntimeError, match="killed"):
        open_store(version_1)
    assert (columns(version_1, "chunks"), columns(version_1, "postings")) == before
    with psycopg.connect(version_1) as db:
        assert db.execute("SELECT version FROM hopgraph_schema").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM postings").fetchone()[0] > 0
