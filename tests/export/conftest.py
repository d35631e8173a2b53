"""The supplier corpus with its triples and communities, built once and opened read-only by each test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import SUPPLIERS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph


@pytest.fixture(scope="module")
def supplier_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("suppliers")
    shutil.copytree(SUPPLIERS / "docs", folder / "docs")
    with HopGraph(str(folder / "s.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.index([folder / "docs"])
        hg.import_triples(SUPPLIERS / "triples.csv")
        hg.communities()
    return folder / "s.db"


@pytest.fixture
def suppliers(supplier_store: Path, tmp_path: Path) -> Iterator[HopGraph]:
    copy = Path(shutil.copyfile(supplier_store, tmp_path / "s.db"))
    with HopGraph(str(copy), Settings(), embedder=BagOfWordsEmbedder(), create=False) as hg:
        yield hg
