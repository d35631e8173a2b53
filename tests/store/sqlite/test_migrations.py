"""Schema versions: a store written by hopgraph 0.3 opens and migrates; a newer one, another
application's database and a file that is no database at all are refused without being changed."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from testkit import TEST_DATA, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.store.sqlite.migrations import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

# Written by hopgraph 0.3 (commit 68f215f, before versioning): 7 documents from examples/suppliers
# and three small linked paragraphs indexed with the gazetteer, 6 imported triples (+1 generated
# source document), the community tree, 2 extractive reports, and one cached LLM reply.
FIXTURE = TEST_DATA / "store_0_3.db"


def pragma(path: Path, name: str) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute(f"PRAGMA {name}").fetchone()[0])
    finally:
        db.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    return Path(shutil.copyfile(FIXTURE, tmp_path / "old.db"))


def test_the_fixture_is_an_unversioned_store(old_store):
    assert pragma(old_store, "user_version") == 0 and pragma(old_store, "application_id") == 0


def test_a_store_written_by_0_3_opens_migrates_and_keeps_everything(old_store):
    store = SQLiteStore(str(old_store))
    try:
        assert pragma(old_store, "user_version") == SCHEMA_VERSION
        assert pragma(old_store, "application_id") == APPLICATION_ID
        table = store.chunk_table()
        assert len(store.active_documents()) == 8 and len(table) == 8
        assert "Corvane Brake Systems" in table.titles.values()
        assert len(store.name_graph().links) == 10
        graph = store.knowledge_graph()
        assert len(graph.relations) == 6 and graph.find("Hosur") is not None
        assert len(store.stored_reports("extractive")) == 2
        assert store.community_tree() is not None
        cache = store.reply_cache()
        assert cache.get("k" * 64) is not None  # the reply 0.3 paid for is still there
    finally:
        store.close()


def test_a_migrated_store_answers_questions(old_store):
    with HopGraph(str(old_store), Settings(), embedder=BagOfWordsEmbedder(), create=False) as hg:
        paths = hg.paths("Hosur", "in", max_hops=2)
        assert any(hop.source == "Anvaya Foundry" for path in paths for hop in path)
        asked = hg.ask("What is located in Hosur?", mode="paths")
        assert "Anvaya Foundry" in asked.text and asked.citations


def test_opening_a_migrated_store_again_changes_nothing(old_store):
    SQLiteStore(str(old_store)).close()
    before = digest(old_store)
    SQLiteStore(str(old_store)).close()
    assert digest(old_store) == before


def test_a_store_from_a_newer_hopgraph_is_refused_with_both_versions(old_store):
    SQLiteStore(str(old_store)).close()
    db = sqlite3.connect(old_store)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    db.commit()
    db.close()
    before = digest(old_store)
    with pytest.raises(HopgraphError) as caught:
        SQLiteStore(str(old_store))
    message = str(caught.value)
    assert "newer hopgraph" in message and str(SCHEMA_VERSION + 3) in message and str(SCHEMA_VERSION) in message
    assert "upgrade hopgraph" in message
    assert digest(old_store) == before


def test_another_applications_database_is_refused_untouched(tmp_path: Path):
    path = tmp_path / "crm.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO customers VALUES (1, 'Acme')")
    db.commit()
    db.close()
    before = digest(path)
    with pytest.raises(HopgraphError, match=r"not a hopgraph store.*customers.*left untouched"):
        SQLiteStore(str(path))
    assert digest(path) == before
    assert not Path(str(path) + "-wal").exists()  # not even switched to WAL
    db = sqlite3.connect(path)
    assert [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == ["customers"]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def test_a_database_marked_by_another_application_is_refused(tmp_path: Path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id = 12345")
    db.execute("CREATE TABLE documents (id INTEGER PRIMARY KEY)")
    db.commit()
    db.close()
    with pytest.raises(HopgraphError, match="not a hopgraph store"):
        SQLiteStore(str(path))


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path):
    path = tmp_path / "notes.db"
    path.write_text("just some notes\n" * 100, encoding="utf-8")
    with pytest.raises(HopgraphError, match="not a hopgraph store"):
        SQLiteStore(str(path))
    assert path.read_text(encoding="utf-8") == "just some notes\n" * 100


def test_a_new_store_starts_at_the_current_version(tmp_path: Path):
    SQLiteStore(str(tmp_path / "new.db")).close()
    assert pragma(tmp_path / "new.db", "user_version") == SCHEMA_VERSION


def test_a_migration_that_fails_leaves_the_old_store_as_it_was(old_store, monkeypatch):
    def broken(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("disk went away")

    before = digest(old_store)
    monkeypatch.setattr("hopgraph.store.sqlite.migrations.MIGRATIONS", [(1, "broken", broken)])
    with pytest.raises(RuntimeError, match="disk went away"):
        SQLiteStore(str(old_store))
    assert pragma(old_store, "user_version") == 0
    db = sqlite3.connect(old_store)
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
    db.close()
    assert digest(old_store) == before


def test_migrations_are_numbered_in_order():
    assert [version for version, _, _ in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def test_a_store_written_by_0_3_gets_title_sources_inferred_and_no_pages(old_store):
    store = SQLiteStore(str(old_store))
    try:
        table = store.chunk_table()
        by_title = {table.titles[doc]: source for doc, source in table.title_sources.items()}
        assert by_title["Plant Profile: Anvaya Foundry, Hosur"] == "heading"  # a Markdown `# ` line in 0.3
        assert by_title["Anvaya Foundry"] == "record"  # linked.json
        assert by_title["07_zephyra_launches_tarini.md"] == "record"  # generated by import-triples
        assert table.pages == [None] * len(table) and table.ords == [0] * len(table)
    finally:
        store.close()


def version_1_store(path: Path) -> Path:
    """A store as hopgraph wrote it at schema version 1 (before pages and title sources)."""
    db = sqlite3.connect(path, isolation_level=None)
    MIGRATIONS[0][2](db)
    db.execute("PRAGMA user_version = 1")
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    documents = [(1, "/notes/plant_visit.md", "plant_visit"), (2, "/notes/ravik.md", "Ravik Foundry"),
                 (3, "/web/shop.html", "Shop Home"), (4, "/data/pool.json", "Dharwad"), (5, "api", "Given title")]
    db.executemany("INSERT INTO documents (id, source, title, content_hash, added_at) VALUES (?, ?, ?, 'h', 't')",
                   documents)
    db.executemany("INSERT INTO chunks (doc_id, ord, text, n_tokens, text_hash) VALUES (?, ?, ?, 1, ?)",
                   [(doc, ord_, f"text {doc}.{ord_}", f"h{doc}{ord_}") for doc, *_ in documents for ord_ in (0, 1)])
    db.close()
    return path


def test_a_version_1_store_migrates_with_pages_and_title_sources(tmp_path: Path):
    path = version_1_store(tmp_path / "v1.db")
    assert pragma(path, "user_version") == 1
    store = SQLiteStore(str(path))
    try:
        assert pragma(path, "user_version") == SCHEMA_VERSION == 5
        table = store.chunk_table()
        assert table.title_sources == {1: "file", 2: "heading", 3: "html", 4: "record", 5: "record"}
        assert table.pages == [None] * 10 and table.ords == [0, 1] * 5
        assert [table.source_of_row(row) for row in range(0, 10, 2)] == [
            "plant_visit.md#1", "ravik.md#1", "shop.html#1", "Dharwad#1", "Given title#1"]
        assert store.active_documents()[("/notes/ravik.md", "Ravik Foundry")].title_source == "heading"
    finally:
        store.close()
    db = sqlite3.connect(path)
    assert {row[1] for row in db.execute("PRAGMA table_info(chunks)")} >= {"page"}
    db.close()
