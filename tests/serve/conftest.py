"""Fixtures of the API tests: the sample store (built once), a server over it as a user starts one,
and copies of the store for tests that write."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_kit import build_sample_store, running_server
from streaming_llm import StreamingLLM, serving


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



@pytest.fixture(scope="session")
def model_server() -> Iterator[tuple[StreamingLLM, str]]:
    """A model server on 127.0.0.1 that streams its replies (tests/support/streaming_llm.py)."""
    llm = StreamingLLM()
    with serving(llm) as url:
        yield llm, url


@pytest.fixture(scope="session")
def llm_server(sample_store: Path, model_server: tuple[StreamingLLM, str]) -> Iterator[str]:
    """`hopgraph serve` over the sample store with `model_server` as its LLM (model "streamer")."""
    with running_server(sample_store, settings={"llm_url": model_server[1], "llm_model": "streamer"}) as base:
        yield base


@pytest.fixture
def model(model_server: tuple[StreamingLLM, str]) -> StreamingLLM:
    """`model_server`'s script, reset for this test."""
    model_server[0].reset()
    return model_server[0]
