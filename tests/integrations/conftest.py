"""Fixtures of the adapter tests: the sample store (indexed once with the real embedder, what a user
runs) and a guard that fails any internet connection."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from two_hop import QUESTION_ID, RECORDS, TwoHop

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.questions import pooled_corpus


@pytest.fixture(scope="session")
def two_hop(tmp_path_factory: pytest.TempPathFactory) -> TwoHop:
    records = json.loads(sample_path().read_text(encoding="utf-8"))[:RECORDS]
    record = next(r for r in records if r["_id"] == QUESTION_ID)
    store = tmp_path_factory.mktemp("two_hop") / "sample.db"
    with HopGraph(str(store), Settings()) as hg:
        hg.index_documents(pooled_corpus(records, "hotpotqa"))
    return TwoHop(store, record["question"], record["answer"])


@pytest.fixture
def sample_graph(two_hop: TwoHop) -> Iterator[HopGraph]:
    with HopGraph(str(two_hop.store), Settings(), create=False) as hg:
        yield hg


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every attempt to open an internet socket fails and is recorded (local Unix sockets pass).
    llama-index-core reads its bundled tiktoken and NLTK caches only when these are unset."""
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("NLTK_DATA", raising=False)
    attempts: list[object] = []
    connect = socket.socket.connect

    def guarded(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(address)
            raise OSError(f"network blocked in this test: {address}")
        connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return attempts
