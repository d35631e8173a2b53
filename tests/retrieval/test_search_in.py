"""Where search runs (`search_in`): chosen per store by "auto", refused with one clear line when
the store cannot serve it or the URL is bad."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError, InputError
from hopgraph.retrieval.search_in import LOADERS, resolve
from hopgraph.store import open_store


def open_graph(location: str, **settings: object) -> HopGraph:
    return HopGraph(location, Settings(**settings), embedder=BagOfWordsEmbedder())  # type: ignore[arg-type]


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_auto_is_the_database_for_postgresql_and_the_snapshot_for_sqlite(pg_url: str, tmp_path: Path) -> None:
    for location, expected in ((pg_url, "database"), (str(tmp_path / "s.db"), "snapshot")):
        store = open_store(location)
        assert resolve(store, "auto") == expected and resolve(store, " Snapshot ") == "snapshot"
        store.close()
    assert set(LOADERS) == {"snapshot", "database"}


def test_a_postgresql_store_can_still_be_searched_over_a_snapshot(pg_url: str) -> None:
    hg = open_graph(pg_url, search_in="snapshot")
    hg.index_documents(TINY_CORPUS)
    assert hg.search_index.origin in ("built", "snapshot") and hg.search_index.vectors.shape[0] == len(TINY_CORPUS)
    hg.close()


def test_an_unknown_choice_is_one_line_naming_the_choices(tmp_path: Path) -> None:
    hg = open_graph(str(tmp_path / "s.db"), search_in="elsewhere")
    hg.index_documents(TINY_CORPUS)
    with pytest.raises(InputError) as caught:
        hg.search("american film")
    assert one_line(caught) == "setting search_in='elsewhere' is unknown; use one of auto, snapshot, database"
    hg.close()


def test_the_database_for_a_sqlite_store_is_one_line_saying_what_to_use(tmp_path: Path) -> None:
    hg = open_graph(str(tmp_path / "s.db"), search_in="database")
    hg.index_documents(TINY_CORPUS)
    with pytest.raises(HopgraphError) as caught:
        hg.search("american film")
    assert "cannot rank chunks itself" in one_line(caught) and 'search_in = "snapshot"' in one_line(caught)
    hg.close()


def test_an_unreachable_server_is_one_line_naming_the_url_without_its_password() -> None:
    url = "postgresql://reader:secret@127.0.0.1:1/hopgraph"
    with pytest.raises(HopgraphError) as caught:
        open_graph(url, search_in="database")
    assert "cannot reach PostgreSQL" in one_line(caught) and "secret" not in one_line(caught)


def test_a_database_without_pgvector_is_one_line_naming_it(pg_server: str) -> None:
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS novector_search")
        admin.execute("DROP ROLE IF EXISTS plain_search")
        admin.execute("CREATE ROLE plain_search LOGIN")
        admin.execute("CREATE DATABASE novector_search")  # the superuser's: the role may not add extensions
    parts = urlsplit(pg_server)
    url = urlunsplit(parts._replace(netloc="plain_search@", path="/novector_search"))
    with pytest.raises(HopgraphError) as caught:
        open_graph(url, search_in="database")
    assert "no pgvector extension (`vector`)" in one_line(caught)
