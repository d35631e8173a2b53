"""An older PostgreSQL store brought up to `SCHEMA_VERSION` when it is opened: in one transaction
under the writer lock, every step in order or none (a failed or killed migration leaves the store
at its old version, readable by the hopgraph that wrote it).

- 2: the keyword index of the embedded store's own terms (keywords.sql). Version 1 ranked keywords
  over PostgreSQL's English full text: the generated `words`/`n_words` columns, their GIN index and
  a postings table of `tsvector` lexemes go, and the new postings are written from every chunk's
  text (at a million chunks, minutes; nothing else is rewritten). And every index of schema.sql
  that version 1 lacked: the ones that lead each foreign key, without which replacing the name graph
  scans a table per name (over six minutes a write at 100k chunks).
- 3: the name graph's rows without foreign keys, and the indexes that only served their cascades
  (schema.sql says why): the keys are found in the catalog and dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hopgraph.store.postgres import keywords
from hopgraph.store.postgres.bulk import GRAPH_CHILDREN
from hopgraph.store.postgres.connection import (
    SCHEMA_VERSION,
    PgDatabase,
    Transaction,
    run_script,
    sql_file,
    stored_version,
)


def _keyword_index(db: PgDatabase) -> None:
    db.execute("DROP TABLE IF EXISTS postings, chunk_stats")
    db.execute("ALTER TABLE chunks DROP COLUMN IF EXISTS words, DROP COLUMN IF EXISTS n_words")  # and their index
    db.execute("DROP FUNCTION IF EXISTS hopgraph_word_count(tsvector)")
    run_script(db, "keywords.sql")
    keywords.write_postings(db, 0, keys_after=True)


def _schema_indexes(db: PgDatabase) -> None:
    """schema.sql's plain indexes made where missing (the statements read from it, not copied here)."""
    for statement in re.findall(r"^CREATE INDEX \w+ ON [^;]+;", sql_file("schema.sql"), flags=re.MULTILINE):
        db.execute(statement.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))


def _graph_without_keys(db: PgDatabase) -> None:
    for (statement,) in db.execute(
            "SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname) FROM pg_constraint "
            "WHERE conrelid = ANY(?::regclass[]) AND contype = 'f'", (list(GRAPH_CHILDREN),)).fetchall():
        db.execute(statement)
    db.execute("DROP INDEX IF EXISTS mentions_name, links_name, links_target, abouts_name")


MIGRATIONS: list[tuple[int, Callable[[PgDatabase], None]]] = [
    (2, _keyword_index), (2, _schema_indexes), (3, _graph_without_keys)]


def upgrade(db: PgDatabase, url: str, lock_timeout: float) -> int | None:
    """Migrate the store if it is older than this hopgraph; the version it had (None: no store)."""
    version = stored_version(db, url)
    if version is None or version >= SCHEMA_VERSION:
        return version
    with Transaction(db, url, lock_timeout):
        version = stored_version(db, url) or 0  # another process may have migrated it meanwhile
        for reached, step in MIGRATIONS:
            if reached > version:
                step(db)
        db.execute("UPDATE hopgraph_schema SET version = ?", (max(version, SCHEMA_VERSION),))
    return version
