"""Which weights made a store's vectors: checked at load, recorded by an index run, compared at open."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.records.documents import Document
from hopgraph.text import nlp
from hopgraph.text.model_identity import (
    PARSER_KEY,
    PARSER_NAME_KEY,
    SPACY_SM_SHA256,
    STORE_KEY,
    checked_parser,
    checked_weights,
    file_sha256,
    folder_sha256,
)


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


# --- the spaCy model that reads names ----------------------------------------------------------------


def test_a_model_folder_hash_follows_every_file_but_compiled_ones(tmp_path: Path):
    folder = tmp_path / "model"
    (folder / "ner").mkdir(parents=True)
    (folder / "ner" / "model").write_bytes(b"weights")
    (folder / "meta.json").write_text("{}", encoding="utf-8")
    before = folder_sha256(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"compiled")
    assert folder_sha256(folder) == before
    (folder / "ner" / "model").write_bytes(b"other weights")
    changed = folder_sha256(folder)
    assert changed != before
    assert checked_parser("m", folder, changed) == changed
    with pytest.raises(HopgraphError, match=f"spaCy model m at .* has sha256 {changed}, not the recorded {before}"):
        checked_parser("m", folder, before)


def test_the_installed_spacy_model_is_the_recorded_one():
    pytest.importorskip(nlp.MODEL_PACKAGE)
    assert nlp.model_sha256() == SPACY_SM_SHA256


def test_an_index_run_records_the_spacy_model_and_a_store_read_by_another_refuses(tmp_path: Path):
    pytest.importorskip(nlp.MODEL_PACKAGE)
    store = str(tmp_path / "s.db")
    with HopGraph(store, Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents(TINY_CORPUS[:2])
        meta = hg.store.meta()
        assert (meta[PARSER_NAME_KEY], meta[PARSER_KEY]) == (nlp.MODEL_PACKAGE, SPACY_SM_SHA256)
        hg.store.set_meta({PARSER_KEY: "c" * 64})  # as if another release of the model had read its names
    refused = (f"read by spaCy model .* sha256 {'c' * 64}, but this one is {nlp.MODEL_PACKAGE} "
               f"with sha256 {SPACY_SM_SHA256}")
    with HopGraph(store, Settings(), embedder=BagOfWordsEmbedder(), create=False) as hg, \
            pytest.raises(HopgraphError, match=refused):
        hg.index_documents(TINY_CORPUS[2:])
