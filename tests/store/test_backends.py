"""The store backends registry: a location's backend by its URL scheme (a plain path is SQLite), a
backend registered from outside the package opened by `open_store`, and the errors for what no
backend takes."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from hopgraph.cli.stats import store_stats
from hopgraph.errors import HopgraphError, InputError
from hopgraph.retrieval.snapshot import snapshot_root
from hopgraph.store import Store, backends, database_errors, is_url, open_store
from hopgraph.store.backends import Backend, backend_for
from hopgraph.store.sqlite import SQLiteStore


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test are forgotten after it."""
    monkeypatch.setattr(backends, "_BACKENDS", dict(backends._BACKENDS))


class MemoStore(SQLiteStore):
    """An in-memory SQLite store reached by its own scheme, as a plugin's backend would be."""

    def __init__(self, url: str, create: bool, lock_timeout: float) -> None:
        super().__init__(":memory:", create, lock_timeout)
        self.url = url

    @property
    def location(self) -> str:
        return self.url


def open_memo(location: str, create: bool, lock_timeout: float) -> Store:
    return MemoStore(location, create, lock_timeout)


@pytest.mark.parametrize("location, name", [("hopgraph.db", "sqlite"), ("/tmp/a b/x.db", "sqlite"),
                                            (":memory:", "sqlite"), ("C:\\stores\\x.db", "sqlite"),
                                            ("postgresql://u@h/db", "postgresql"), ("postgres://h/db", "postgresql"),
                                            ("PostgreSQL://h/db", "postgresql")])
def test_a_location_names_its_backend(location: str, name: str) -> None:
    assert backend_for(location).name == name
    assert is_url(location) == (name != "sqlite")


def test_an_unknown_scheme_is_an_input_error_listing_the_known_ones() -> None:
    with pytest.raises(InputError, match=r"unknown store scheme 'mysql://'; use a file path or postgresql:// or "
                                         r"postgres:// \(PostgreSQL"):
        open_store("mysql://h/db")


def test_a_registered_backend_opens_its_scheme(registry: None) -> None:
    backends.register(Backend("memo", ("memo",), open_memo, "in memory, for tests", lambda: (KeyError,)))
    store = open_store("memo://scratch")
    try:
        assert isinstance(store, MemoStore) and store.active_documents() == {}
        assert store_stats(store).backend == "memo"  # stats asks the registry, not the string
        assert snapshot_root("memo://scratch") is not None  # a server store's snapshot: in the user cache
        assert "memo:// (in memory, for tests)" in backends.described()
        assert KeyError in database_errors()
    finally:
        store.close()


def test_database_errors_hold_every_built_in_driver_s() -> None:
    assert sqlite3.Error in database_errors()


@pytest.mark.parametrize("backend", [Backend("sqlite", ("other",), open_memo, "a taken name"),
                                     Backend("pg2", ("postgres",), open_memo, "a taken scheme"),
                                     Backend("files", (), open_memo, "a second default")])
def test_a_backend_must_not_take_another_s_name_scheme_or_paths(registry: None, backend: Backend) -> None:
    with pytest.raises(HopgraphError, match="cannot register store backend"):
        backends.register(backend)


def test_stats_name_the_sqlite_backend(tmp_path: Path) -> None:
    with closing(open_store(str(tmp_path / "s.db"))) as store:
        assert store_stats(store).backend == "sqlite"
