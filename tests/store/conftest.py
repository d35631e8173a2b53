"""Every backend of the store protocols passes the same tests: `store_location` is a SQLite file or a
PostgreSQL schema of its own (tests/support/pgkit.py: a real server, started once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "sub" / "store.db")  # the folder does not exist yet
