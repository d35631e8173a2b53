"""Shared fixtures: the bag-of-words embedder, small ready-made stores, the fake LLM server.

The helpers they use live in support/ (on the path, see pyproject.toml): testkit, fake_llm,
scripted_chat, local_model, pgkit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from fake_llm import fake, make_client, server  # noqa: F401  (fixtures: a fake LLM server on 127.0.0.1)
from pgkit import pg_server, pg_url  # noqa: F401  (fixtures: a real PostgreSQL server, a schema per test)
from streaming_llm import streaming_llm, streaming_server  # noqa: F401  (fixtures: a model server that streams)
from testkit import E2E_METHODS, E2E_RECORDS, TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph


@pytest.fixture
def embedder() -> BagOfWordsEmbedder:
    return BagOfWordsEmbedder()


@pytest.fixture
def tiny_graph(tmp_path: Path, embedder: BagOfWordsEmbedder) -> HopGraph:
    """A HopGraph over TINY_CORPUS with the bag-of-words embedder, already indexed."""
    hg = HopGraph(str(tmp_path / "tiny.db"), Settings(), embedder=embedder)
    hg.index_documents(TINY_CORPUS)
    yield hg
    hg.close()


@pytest.fixture(scope="session")
def hotpot_e2e(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """The first E2E_RECORDS records of the bundled sample, indexed once with the real embedder:
    (data file, store file, run_eval result). Shared by the eval and demo tests."""
    from hopgraph.cli.demo import sample_path
    from hopgraph.eval import run_eval

    root = tmp_path_factory.mktemp("hotpot_slice")
    data, store = root / "slice.json", root / "e2e.db"
    records = json.loads(sample_path().read_text(encoding="utf-8"))[:E2E_RECORDS]
    data.write_text(json.dumps(records), encoding="utf-8")
    return data, store, run_eval(data, methods=E2E_METHODS, store=str(store), settings=Settings())


@pytest.fixture(scope="session")
def book(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HopGraph]:
    """The bundled A Christmas Carol with its concept graph (spaCy), indexed once with the bag-of-words
    embedder. Shared by the community, label and global-search tests, which only read it. The
    recorded global-search replies were made over 600-token windows: their prompts must be
    byte-identical, so the book keeps that chunking here."""
    path = tmp_path_factory.mktemp("book") / "carol.db"
    text = resources.files("hopgraph.assets").joinpath("a_christmas_carol.txt")
    settings = Settings(chunking="windows")
    with resources.as_file(text) as source, HopGraph(str(path), settings, embedder=BagOfWordsEmbedder()) as hg:
        hg.index([Path(source)])
        hg.extract_concepts()
        yield hg
