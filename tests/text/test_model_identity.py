"""Which weights made a store's vectors: checked at load, recorded by an index run, compared at open."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.records.documents import Document
from hopgraph.text.model_identity import STORE_KEY, checked_weights, file_sha256


class HashedEmbedder(BagOfWordsEmbedder):
    """The test embedder with a weights hash, as the bundled MiniLM has one."""

    def __init__(self, sha256: str) -> None:
        super().__init__()
        self.weights_sha256 = sha256


def test_weights_with_another_hash_than_the_recorded_one_are_an_error_naming_both(tmp_path: Path):
    weights = tmp_path / "model.onnx"
    weights.write_bytes(b"other weights")
    found = file_sha256(weights)
    assert checked_weights("m", weights, found) == found
    with pytest.raises(HopgraphError, match=f"sha256 {found}, not the recorded {'0' * 64}"):
        checked_weights("m", weights, "0" * 64)


def test_a_store_written_with_one_weights_hash_refuses_to_open_under_another(tmp_path: Path):
    store = str(tmp_path / "s.db")
    with HopGraph(store, Settings(), embedder=HashedEmbedder("a" * 64)) as hg:
        hg.index_documents(TINY_CORPUS)
        assert hg.store.meta()[STORE_KEY] == "a" * 64
    with HopGraph(store, Settings(), embedder=HashedEmbedder("a" * 64), create=False) as hg:
        assert hg.search("Who directed Big Stone Gap?").hits  # the same weights open it
    with HopGraph(store, Settings(), embedder=HashedEmbedder("b" * 64), create=False) as hg:
        with pytest.raises(HopgraphError, match=f"weights sha256 {'a' * 64}, but this embedder .* {'b' * 64}"):
            hg.search("Who directed Big Stone Gap?")
        with pytest.raises(HopgraphError, match="do not compare"):
            hg.index_documents(TINY_CORPUS)


def test_a_store_without_a_recorded_hash_opens_and_records_one_at_the_next_index(tmp_path: Path):
    store = str(tmp_path / "s.db")
    with HopGraph(store, Settings(), embedder=BagOfWordsEmbedder()) as hg:  # no hash: as before 0.5
        hg.index_documents(TINY_CORPUS)
        assert not hg.store.meta().get(STORE_KEY)
    with HopGraph(store, Settings(), embedder=HashedEmbedder("c" * 64), create=False) as hg:
        assert hg.search("Who directed Big Stone Gap?").hits
        hg.index_documents([Document("Donna Gigliotti", "Donna Gigliotti is an American film producer.", "more")],
                           replace_sources=False)
        assert hg.store.meta()[STORE_KEY] == "c" * 64


@pytest.mark.slow
def test_the_bundled_model_loads_only_with_its_recorded_weights():
    from hopgraph.text.embed import MiniLMEmbedder
    from hopgraph.text.model_identity import MINILM_INT8_SHA256

    assert MiniLMEmbedder().weights_sha256 == MINILM_INT8_SHA256


def test_reembed_makes_every_vector_again_and_the_store_opens_under_the_new_weights(tmp_path: Path):
    store = str(tmp_path / "s.db")
    with HopGraph(store, Settings(), embedder=HashedEmbedder("a" * 64)) as hg:
        hg.index_documents(TINY_CORPUS)
    chunks = len(TINY_CORPUS)
    with HopGraph(store, Settings(), embedder=HashedEmbedder("b" * 64), create=False) as hg:
        report = hg.index_documents(TINY_CORPUS, reembed=True)
        assert report.embedded >= chunks and hg.store.meta()[STORE_KEY] == "b" * 64
        assert hg.search("Who directed Big Stone Gap?").hits
