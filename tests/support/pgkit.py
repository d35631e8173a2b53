"""A real PostgreSQL 16 + pgvector 0.6 for the tests (the `pgserver` wheel: a unix socket, no root,
started in about a second), and a fresh schema per test so tests never see each other's tables."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a server that lives for the test session."""
    import pgserver

    # A short path: a unix socket's path must stay under ~100 bytes.
    data = Path("/tmp") / f"hopgraph-pg-{uuid.uuid4().hex[:8]}"
    server = pgserver.get_server(data, cleanup_mode="delete")
    yield server.get_uri()
    server.cleanup()


def schema_url(base: str, schema: str) -> str:
    """The URL whose connections keep their tables in `schema` (libpq's `options`)."""
    return f"{base}&options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A URL onto an empty schema of its own, dropped after the test."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server, autocommit=True) as db:
        db.execute(f"CREATE SCHEMA {schema}")
    yield schema_url(pg_server, schema)
    with psycopg.connect(pg_server, autocommit=True) as db:
        db.execute(f"DROP SCHEMA {schema} CASCADE")
