"""Fixtures of the API tests: the sample store (built once), a server over it as a user starts one,
and copies of the store for tests that write."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_kit import build_sample_store, running_server


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_store(tmp_path_factory.mktemp("served") / "sample.db")


@pytest.fixture(scope="session")
def server(sample_store: Path) -> Iterator[str]:
    """`hopgraph serve` on 127.0.0.1 over the sample store; tests that write use `fresh_store`."""
    with running_server(sample_store) as base:
        yield base


@pytest.fixture
def fresh_store(sample_store: Path, tmp_path: Path) -> Path:
    """A copy of the sample store for a test that writes (the closed store's WAL is in the file)."""
    folder = tmp_path / "store"
    folder.mkdir()
    return Path(shutil.copyfile(sample_store, folder / "sample.db"))

