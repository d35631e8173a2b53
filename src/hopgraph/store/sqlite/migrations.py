"""The schema version of a SQLite store, and the ordered migrations that bring an older store up to it.

A hopgraph store is marked by `PRAGMA application_id` and versioned by `PRAGMA user_version`.
Opening checks the file *before writing anything*: another application's database is refused
untouched (not switched to WAL, no table added), and a store written by a newer hopgraph is
refused with the versions named. An older store is migrated in one transaction: every step runs
in order, or none does. Stores written before versioning (hopgraph ≤ 0.3, application id 0 but
hopgraph's tables) count as version 0.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from importlib import resources
from pathlib import PurePath

from hopgraph.errors import HopgraphError

APPLICATION_ID = 0x686F7067  # "hopg"
# The tables every hopgraph store has had since the first release: how an unversioned store is told
# from another application's database.
FIRST_TABLES = frozenset({"documents", "chunks", "vectors", "names", "mentions", "links", "meta", "runs"})
CACHE_ONLY = frozenset({"llm_cache"})  # a reply cache file that hopgraph 0.3's LLM client made on its own


def _baseline(db: sqlite3.Connection) -> None:
    """Version 1: the 0.3 schema (created where missing), the columns 0.3 added in place, and the
    reply cache table, which 0.3 created lazily from the LLM client."""
    for statement in _statements(resources.files("hopgraph.store.sqlite").joinpath("schema.sql").read_text("utf-8")):
        db.execute(statement)
    for table, column, declaration in (("relations", "valid_until", "TEXT"), ("relation_sources", "until", "TEXT")):
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in present:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _statements(script: str) -> list[str]:
    """The script's statements one by one: `executescript` would commit the migration's transaction."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return [s for s in statements if s]


def _add_column(db: sqlite3.Connection, table: str, column: str, declaration: str) -> None:
    if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _pages_and_title_sources(db: sqlite3.Connection) -> None:
    """Version 2: `chunks.page` (the page a chunk of a PDF starts on, else NULL) and
    `documents.title_source` (where the title came from: metadata, heading, html, record, file).

    Stores of version 1 did not record title sources; they are inferred from what the readers of
    that version did, erring towards "file" (a title that is not used as a name) when unsure."""
    _add_column(db, "chunks", "page", "INTEGER")
    _add_column(db, "documents", "title_source", "TEXT NOT NULL DEFAULT 'record'")
    rows = db.execute("SELECT id, source, title FROM documents").fetchall()
    db.executemany("UPDATE documents SET title_source = ? WHERE id = ?",
                   [(_inferred_title_source(source, title), doc_id) for doc_id, source, title in rows])


def _inferred_title_source(source: str, title: str) -> str:
    """What a version-1 reader did: JSON records carry titles; a title equal to the file's stem is
    the stem; otherwise an HTML <title> or a Markdown heading. Sources that are not file paths
    (documents handed in by code, generated ones) carry titles like records."""
    path = PurePath(source)
    suffix = path.suffix.lower()
    if suffix not in (".txt", ".md", ".markdown", ".html", ".htm"):  # .json, .jsonl, or no file at all
        return "record"
    if title == path.stem:
        return "file"
    return "html" if suffix in (".html", ".htm") else "heading"


def _source_extractors(db: sqlite3.Connection) -> None:
    """Version 3: which extractor stated each relation in each chunk (provenance of merged facts)."""
    _add_column(db, "relation_sources", "extractor", "TEXT NOT NULL DEFAULT ''")


def _aboutness(db: sqlite3.Connection) -> None:
    """Version 4: names read from the text. `chunks.continues` (the chunk starts inside a paragraph
    an earlier chunk began), `links.weight` (how much the target is about the linking name), what
    each chunk is about (`abouts`), and the cache of paragraph readings (`readings`, by text hash)."""
    _add_column(db, "chunks", "continues", "INTEGER NOT NULL DEFAULT 0")
    _add_column(db, "links", "weight", "REAL NOT NULL DEFAULT 1")
    db.execute("""CREATE TABLE IF NOT EXISTS abouts (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        name_id  INTEGER NOT NULL REFERENCES names(id) ON DELETE CASCADE,
        weight   REAL NOT NULL,
        PRIMARY KEY (chunk_id, name_id))""")
    db.execute("""CREATE TABLE IF NOT EXISTS readings (
        text_hash TEXT NOT NULL,
        reader    TEXT NOT NULL,
        payload   TEXT NOT NULL,
        PRIMARY KEY (text_hash, reader))""")


def _supersession(db: sqlite3.Connection) -> None:
    """Version 5: `relations.superseded_by`, the relation that replaced a functional one (issue 12)."""
    _add_column(db, "relations", "superseded_by", "INTEGER")


# (version reached, what it changes, the step). Append only: a released step never changes.
MIGRATIONS: list[tuple[int, str, Callable[[sqlite3.Connection], None]]] = [
    (1, "schema version and application id; the 0.3 tables", _baseline),
    (2, "chunks.page and documents.title_source", _pages_and_title_sources),
    (3, "relation_sources.extractor", _source_extractors),
    (4, "chunks.continues, links.weight, abouts, readings", _aboutness),
    (5, "relations.superseded_by", _supersession),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def check_and_migrate(db: sqlite3.Connection, location: str) -> int:
    """Refuse what is not a hopgraph store or is too new; migrate what is older. Returns the
    version the file had. Nothing is written unless the file is (or is becoming) a hopgraph store."""
    try:
        application_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as err:
        raise HopgraphError(f"{location}: not a hopgraph store ({err})") from None
    foreign = application_id not in (0, APPLICATION_ID) or (
        application_id == 0 and tables and not tables >= FIRST_TABLES)
    if foreign:
        shown = ", ".join(sorted(tables)[:5]) + (" …" if len(tables) > 5 else "")
        raise HopgraphError(f"{location}: not a hopgraph store (a SQLite database of another application"
                            f"{': tables ' + shown if tables else ''}); it was left untouched")
    if version > SCHEMA_VERSION:
        raise HopgraphError(f"{location}: written by a newer hopgraph (store schema version {version}; this "
                            f"hopgraph reads up to {SCHEMA_VERSION}): upgrade hopgraph to open it")
    if version < SCHEMA_VERSION:
        _migrate(db, version)
    return int(version)


def _migrate(db: sqlite3.Connection, version: int) -> None:
    db.execute("BEGIN IMMEDIATE")
    try:
        for reached, _, step in MIGRATIONS:
            if reached > version:
                step(db)
                db.execute(f"PRAGMA user_version = {reached}")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
