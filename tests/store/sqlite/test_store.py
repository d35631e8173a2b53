"""The SQLite store as a file: another file is refused untouched, an in-memory store writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopgraph.errors import HopgraphError
from hopgraph.records.documents import DocumentChange
from hopgraph.store import SQLiteStore

from ..sql.test_documents import AUTHOR, apply, no_graph


def test_file_that_is_not_sqlite_is_a_hopgraph_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("These are my notes, not a database.\n" * 50)
    with pytest.raises(HopgraphError) as caught:
        SQLiteStore(str(path))
    assert str(path) in str(caught.value)
    assert path.read_text().startswith("These are my notes")  # left untouched


def test_in_memory_store_keeps_data_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    memory = SQLiteStore(":memory:")
    apply(memory, DocumentChange(upserts=[AUTHOR]), no_graph)
    assert memory.chunk_table().texts == ["Adriana Trigiani is an author."]
    memory.close()
    assert list(tmp_path.iterdir()) == []


