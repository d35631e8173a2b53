"""How a command opens the store: a failing write command creates nothing (issue 25, defect 7)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cli_kit import fails, invoke


def everything_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_index_of_a_missing_path_creates_no_store_and_no_folder(workdir: Path, monkeypatch, capsys):
    before = everything_under(workdir)
    fails(monkeypatch, capsys, "index", str(workdir / "missing"), "--store", str(workdir / "new" / "deep" / "s.db"))
    assert everything_under(workdir) == before


def test_index_of_a_folder_whose_files_are_all_skipped_creates_nothing(workdir: Path, monkeypatch, capsys):
    empty = workdir / "empties"
    empty.mkdir()
    (empty / "a.txt").write_bytes(b"")
    before = everything_under(workdir)
    out = fails(monkeypatch, capsys, "index", str(empty), "--store", str(workdir / "out" / "s.db"))
    assert "file is empty" in out
    assert everything_under(workdir) == before


def test_import_triples_with_a_bad_header_creates_no_store(workdir: Path, monkeypatch, capsys):
    bad = workdir / "bad.csv"
    bad.write_text("who,what\nA,B\n", encoding="utf-8")
    before = everything_under(workdir)
    fails(monkeypatch, capsys, "import-triples", str(bad), "--store", str(workdir / "t.db"))
    assert everything_under(workdir) == before


def test_a_failing_index_leaves_an_existing_store_in_place(workdir: Path, monkeypatch, capsys):
    db = workdir / "kept.db"
    invoke("index", str(workdir / "docs"), "--store", str(db))
    fails(monkeypatch, capsys, "index", str(workdir / "missing"), "--store", str(db))
    with sqlite3.connect(db) as kept:
        assert kept.execute("SELECT count(*) FROM documents").fetchone()[0] == 3


@pytest.mark.parametrize("command", ["index", "import-triples"])
def test_a_command_that_succeeds_keeps_the_store_it_created(workdir: Path, command: str):
    target = workdir / "docs" if command == "index" else workdir / "triples.csv"
    if command == "import-triples":
        invoke("index", str(workdir / "docs"), "--store", str(workdir / "fresh" / "s.db"))
    invoke(command, str(target), "--store", str(workdir / "fresh" / "s.db"))
    assert (workdir / "fresh" / "s.db").exists()
