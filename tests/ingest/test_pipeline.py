"""Indexing: incremental updates, withdrawal, resumable embedding, and embedding each text once."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

import hopgraph.ingest.embedding
import hopgraph.ingest.pipeline
from hopgraph.config import Settings
from hopgraph.ingest.chunking import chunk_document
from hopgraph.ingest.pipeline import index_documents, read_paths, sha
from hopgraph.ingest.readers import read_documents
from hopgraph.records.documents import Document
from hopgraph.store import SQLiteStore


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "index.db"


@pytest.fixture
def store(db_path: Path) -> SQLiteStore:
    s = SQLiteStore(str(db_path))
    yield s
    s.close()


def dump(path: Path) -> list[str]:
    """Every row of every table, read through a second connection."""
    with sqlite3.connect(path) as db:
        return list(db.iterdump())


def count_rows(path: Path, table: str) -> int:
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def chunk_hashes(docs: list[Document], settings: Settings) -> list[str]:
    """The text hash of every chunk of `docs`, in order, without duplicates."""
    hashes = [sha(c.text) for d in docs for c in chunk_document(d, d.title, settings.chunk_tokens,
                                                                   settings.chunk_overlap)]
    return list(dict.fromkeys(hashes))


def texts_by_title(store: SQLiteStore) -> dict[str, list[str]]:
    table = store.chunk_table()
    result: dict[str, list[str]] = {}
    for doc_id, text in zip(table.doc_ids.tolist(), table.texts, strict=True):
        result.setdefault(table.titles[doc_id], []).append(text)
    return result


def test_first_run_adds_every_document_with_searchable_vectors(store: SQLiteStore,
                                                               embedder: BagOfWordsEmbedder) -> None:
    report = index_documents(store, embedder, TINY_CORPUS, Settings())
    assert report.documents == report.added == len(TINY_CORPUS)
    assert report.updated == report.unchanged == report.withdrawn == 0
    assert report.changed
    assert set(store.active_documents()) == {(d.source, d.title) for d in TINY_CORPUS}
    table = store.chunk_table()
    assert report.chunks_written == len(table) and report.embedded == embedder.texts_embedded == len(table)
    assert store.vector_matrix(table.text_hashes, embedder.name).shape == (len(table), embedder.dim)
    assert store.meta()["embedder"] == embedder.name
    assert report.links == len(store.name_graph().links) > 0


def test_reindexing_unchanged_documents_embeds_and_writes_nothing(store: SQLiteStore, db_path: Path,
                                                                  embedder: BagOfWordsEmbedder) -> None:
    index_documents(store, embedder, TINY_CORPUS, Settings())
    embedded_before, before = embedder.texts_embedded, dump(db_path)
    assert count_rows(db_path, "runs") == 1

    report = index_documents(store, embedder, TINY_CORPUS, Settings())

    assert embedder.texts_embedded == embedded_before
    assert report.unchanged == len(TINY_CORPUS) and not report.changed and report.embedded == 0
    assert count_rows(db_path, "runs") == 1
    assert dump(db_path) == before


def test_changed_chunking_settings_rechunk_every_document(store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    index_documents(store, embedder, TINY_CORPUS, Settings())
    report = index_documents(store, embedder, TINY_CORPUS, Settings(chunk_tokens=12, chunk_overlap=3))
    assert report.updated == len(TINY_CORPUS)
    assert max(len(texts) for texts in texts_by_title(store).values()) > 1


def test_changed_name_settings_rebuild_the_graph_without_embedding(store: SQLiteStore, db_path: Path,
                                                                   embedder: BagOfWordsEmbedder) -> None:
    index_documents(store, embedder, TINY_CORPUS, Settings())
    links_before = store.name_graph().links
    embedded_before = embedder.texts_embedded
    # Every title is shorter than 100 characters, so every name is filtered and no link is left.
    report = index_documents(store, embedder, TINY_CORPUS, Settings(min_name_chars=100))
    assert links_before and store.name_graph().links == [] and report.links == 0
    assert embedder.texts_embedded == embedded_before
    assert count_rows(db_path, "runs") == 2


def test_changing_one_document_reembeds_only_its_chunks(store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    settings = Settings()
    index_documents(store, embedder, TINY_CORPUS, settings)
    embedded_before = embedder.texts_embedded
    changed = replace(TINY_CORPUS[2], text="Greenwich Village is a neighborhood famous for its bohemian past.")
    corpus = [*TINY_CORPUS[:2], changed, *TINY_CORPUS[3:]]

    report = index_documents(store, embedder, corpus, settings)

    assert (report.added, report.updated, report.unchanged, report.withdrawn) == (0, 1, len(corpus) - 1, 0)
    assert embedder.texts_embedded - embedded_before == len(chunk_hashes([changed], settings)) == report.embedded
    assert texts_by_title(store)["Greenwich Village"] == [changed.text]
    table = store.chunk_table()
    assert store.vector_matrix(table.text_hashes, embedder.name).shape[0] == len(table)


def test_document_dropped_from_a_reread_source_is_withdrawn(store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    other_source = [Document("Stone Age", "The Stone Age is described elsewhere.", "other.txt")]
    index_documents(store, embedder, [*TINY_CORPUS, *other_source], Settings())

    report = index_documents(store, embedder, TINY_CORPUS[:-1], Settings())

    assert report.withdrawn == 1
    active = store.active_documents()
    assert ("tiny", "Romantic comedy") not in active
    assert "Romantic comedy" not in texts_by_title(store)
    assert ("other.txt", "Stone Age") in active  # a source that was not re-read keeps its documents
    assert len(active) == len(TINY_CORPUS) - 1 + 1


def test_without_replace_sources_a_missing_document_is_kept(store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    index_documents(store, embedder, TINY_CORPUS, Settings())
    report = index_documents(store, embedder, TINY_CORPUS[:-1], Settings(), replace_sources=False)
    assert report.withdrawn == 0
    assert ("tiny", "Romantic comedy") in store.active_documents()


def test_record_removed_from_a_file_is_withdrawn_on_the_next_read(tmp_path: Path, store: SQLiteStore,
                                                                  embedder: BagOfWordsEmbedder) -> None:
    path = tmp_path / "docs" / "corpus.json"
    path.parent.mkdir()
    records = [{"title": d.title, "text": d.text} for d in TINY_CORPUS]
    path.write_text(json.dumps(records), encoding="utf-8")
    index_documents(store, embedder, read_paths([tmp_path / "docs"]).documents, Settings())
    path.write_text(json.dumps(records[1:]), encoding="utf-8")

    report = index_documents(store, embedder, read_paths([tmp_path / "docs"]).documents, Settings())

    assert report.withdrawn == 1
    assert {title for _, title in store.active_documents()} == {r["title"] for r in records[1:]}


class FailingEmbedder(BagOfWordsEmbedder):
    """Embeds its first batch, then fails as a crashed model server or Ctrl-C would."""

    def embed(self, texts: Sequence[str], progress: object = None) -> np.ndarray:
        if self.calls == 1:
            self.calls += 1
            raise RuntimeError("embedding server went away")
        return super().embed(texts, progress)


def test_interrupted_embedding_writes_no_documents_keeps_finished_batches_and_resumes(
        store: SQLiteStore, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hopgraph.ingest.embedding, "EMBED_COMMIT_EVERY", 2)
    settings = Settings()
    hashes = chunk_hashes(TINY_CORPUS, settings)
    assert len(hashes) > 4

    failing = FailingEmbedder()
    with pytest.raises(RuntimeError, match="went away"):
        index_documents(store, failing, TINY_CORPUS, settings)

    assert store.active_documents() == {}
    assert len(store.chunk_table()) == 0
    assert count_rows(db_path, "runs") == 0
    assert len(store.cached_vectors(hashes, failing.name)) == 2  # the first batch was committed

    resumed = BagOfWordsEmbedder()
    report = index_documents(store, resumed, TINY_CORPUS, settings)
    assert resumed.texts_embedded == report.embedded == len(hashes) - 2
    assert report.added == len(TINY_CORPUS)
    table = store.chunk_table()
    assert store.vector_matrix(table.text_hashes, resumed.name).shape[0] == len(table)


def test_identical_texts_in_two_documents_are_embedded_once(store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    shared = "This paragraph is copied word for word into two documents."
    docs = [Document("Copy A", shared, "s"), Document("Copy B", shared, "s"), Document("Other", "Different.", "s")]
    report = index_documents(store, embedder, docs, Settings())
    assert embedder.texts_embedded == report.embedded == 2
    table = store.chunk_table()
    assert len(table) == 3
    matrix = store.vector_matrix(table.text_hashes, embedder.name)
    np.testing.assert_array_equal(matrix[0], matrix[1])


def test_text_already_embedded_for_another_document_is_not_embedded_again(
        store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    index_documents(store, embedder, TINY_CORPUS, Settings())
    before = embedder.texts_embedded
    copy = Document("Copy of Gap Inc.", TINY_CORPUS[5].text, "tiny")
    report = index_documents(store, embedder, [*TINY_CORPUS, copy], Settings())
    assert report.added == 1 and embedder.texts_embedded == before


def test_reindexing_with_another_embedder_embeds_the_existing_chunks(store: SQLiteStore,
                                                                     embedder: BagOfWordsEmbedder) -> None:
    class OtherEmbedder(BagOfWordsEmbedder):
        name = "other-bag-of-words"

    index_documents(store, embedder, TINY_CORPUS, Settings())
    other = OtherEmbedder()
    index_documents(store, other, TINY_CORPUS, Settings())
    table = store.chunk_table()
    assert store.vector_matrix(table.text_hashes, other.name).shape[0] == len(table)


def test_run_record_holds_the_counts_of_the_run(store: SQLiteStore, db_path: Path,
                                                embedder: BagOfWordsEmbedder) -> None:
    report = index_documents(store, embedder, TINY_CORPUS, Settings())
    with sqlite3.connect(db_path) as db:
        stats = json.loads(db.execute("SELECT stats FROM runs").fetchone()[0])
    assert (stats["added"], stats["chunks_written"], stats["links"]) == (report.added, report.chunks_written,
                                                                         report.links)


def test_a_text_document_keeps_the_content_hash_it_had_before_pages_existed(store: SQLiteStore,
                                                                            embedder: BagOfWordsEmbedder) -> None:
    """Pages alone must not re-chunk (and drop the facts of) every stored document: under token
    windows a text keeps the hash 0.3 gave it. Paragraph chunking is another chunking: its own hash."""
    windows = Settings(chunking="windows")
    index_documents(store, embedder, TINY_CORPUS[:1], windows)
    doc = TINY_CORPUS[0]
    stored = store.active_documents()[(doc.source, doc.title)]
    assert stored.content_hash == sha(f"{windows.chunk_tokens}/{windows.chunk_overlap}\n{doc.text}")
    index_documents(store, embedder, TINY_CORPUS[:1], Settings())
    assert store.active_documents()[(doc.source, doc.title)].content_hash != stored.content_hash


def test_a_pdf_is_indexed_with_its_pages_and_found_by_page(tmp_path: Path) -> None:
    from make_documents import FORMATS

    from hopgraph.engine import HopGraph

    settings = replace(Settings(), chunk_tokens=24, chunk_overlap=4)
    with HopGraph(str(tmp_path / "pdf.db"), settings, embedder=BagOfWordsEmbedder()) as hg:
        report = hg.index([FORMATS / "quarterly_report.pdf"])
        assert report.added == 1 and report.chunks_written > 3
        table = hg.store.chunk_table()
        assert set(table.pages) == {1, 2, 3} and table.pages == sorted(table.pages)
        hits = hg.search("Kallur Pig Iron Works pig iron source", method="bm25", top=3).hits
        doc = read_documents(FORMATS / "quarterly_report.pdf")[0]
        pages = [doc.page_at(doc.text.index(hit.text)) for hit in hits]  # the page each hit starts on
        assert [hit.source for hit in hits] == [f"quarterly_report.pdf#p{page}" for page in pages]
        assert 3 in pages and "Kallur" in hits[0].text
        again = hg.index([FORMATS / "quarterly_report.pdf"])
        assert again.unchanged == 1 and again.updated == 0


def test_pages_are_part_of_what_decides_a_pdfs_chunks(store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    text = "First part of the text.\n\nSecond part of the text."
    one_page = Document("Report", text, "/r.pdf", "metadata", ((0, 1), (25, 1)))
    two_pages = Document("Report", text, "/r.pdf", "metadata", ((0, 1), (25, 2)))
    index_documents(store, embedder, [one_page], Settings())
    report = index_documents(store, embedder, [two_pages], Settings())
    assert report.updated == 1 and report.embedded == 0  # re-chunked for the pages, no text embedded again


def test_a_title_that_now_comes_from_elsewhere_is_relabelled_without_rechunking(
        store: SQLiteStore, embedder: BagOfWordsEmbedder) -> None:
    as_file = Document("ravik", "Ravik Foundry runs a plant in Dharwad.", "/notes/ravik.md", "file")
    index_documents(store, embedder, [as_file], Settings())
    chunk_ids = store.chunk_table().ids.tolist()
    report = index_documents(store, embedder, [replace(as_file, title_source="heading")], Settings())
    assert (report.updated, report.unchanged, report.chunks_written) == (1, 0, 0)
    table = store.chunk_table()
    assert table.ids.tolist() == chunk_ids and set(table.title_sources.values()) == {"heading"}


def test_a_folder_read_by_another_path_replaces_its_documents_never_doubles_them(tmp_path: Path,
                                                                               monkeypatch) -> None:
    from hopgraph.engine import HopGraph

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Ravik Foundry casts discs in Dharwad.", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with HopGraph(str(tmp_path / "x.db"), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        hg.index(["docs"])
        monkeypatch.chdir(tmp_path / "docs")
        again = hg.index(["."])
        assert (again.added, again.unchanged) == (0, 1)
        assert [source for source, _ in hg.store.active_documents()] == [str(tmp_path / "docs" / "a.md")]


def test_a_relative_source_of_an_older_store_is_withdrawn_when_its_file_is_read_again(
        store: SQLiteStore, embedder: BagOfWordsEmbedder, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "a.md").write_text("Ravik Foundry casts discs in Dharwad.", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    typed = Document("a", "Ravik Foundry casts discs.", "a.md")  # as hopgraph ≤ 0.3 stored it
    index_documents(store, embedder, [typed], Settings())
    read = read_paths(["a.md"])
    report = index_documents(store, embedder, read.documents, Settings())
    assert (report.added, report.withdrawn) == (1, 1)
    assert [source for source, _ in store.active_documents()] == [str(tmp_path / "a.md")]
