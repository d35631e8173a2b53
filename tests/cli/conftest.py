"""Fixtures of the command-line tests: a working folder with the inputs, and stores built once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_kit import invoke, isolate, write_inputs


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch) -> Path:
    isolate(monkeypatch, tmp_path)
    write_inputs(tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two stores made once through the CLI, copied by each test: indexed, and indexed + triples imported."""
    folder = tmp_path_factory.mktemp("cli_graph")
    write_inputs(folder)
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, folder)
        indexed, imported = folder / "indexed.db", folder / "imported.db"
        invoke("index", str(folder / "docs"), "--store", str(indexed))
        shutil.copyfile(indexed, imported)  # closed stores: the WAL was checkpointed into the file
        invoke("import-triples", str(folder / "triples.csv"), "--store", str(imported))
    return indexed, imported


@pytest.fixture
def store(built: tuple[Path, Path], workdir: Path) -> Path:
    return Path(shutil.copyfile(built[0], workdir / "kg.db"))


@pytest.fixture
def imported(built: tuple[Path, Path], workdir: Path) -> Path:
    return Path(shutil.copyfile(built[1], workdir / "kg.db"))
