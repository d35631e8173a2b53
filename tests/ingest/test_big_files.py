"""A big text file is read, hashed, chunked and written as a stream: the same documents, hashes,
chunks and errors as a whole read, without holding the file's text or all its chunks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.errors import UnreadableFile
from hopgraph.ingest import textfile
from hopgraph.ingest.chunking import chunk_document
from hopgraph.ingest.pipeline import content_hash_of, index_documents, plan_change, read_paths, sha
from hopgraph.ingest.readers import read_documents
from hopgraph.ingest.spill import SpilledChunks
from hopgraph.records.documents import Chunk, Document
from hopgraph.store import SQLiteStore

SETTINGS = Settings(chunk_tokens=40, chunk_overlap=8)


def notes(n_paragraphs: int = 60, seed: int = 1) -> str:
    """Markdown with a BOM-free heading, accents (two-byte characters) and a 4-byte emoji, padded
    with whitespace at both ends."""
    rng = random.Random(seed)
    words = ["café", "Ravik", "foundry", "casts", "brake", "discs", "in", "Hosur", "naïve", "🙂", "plant", "ships"]
    paragraphs = [" ".join(rng.choice(words) for _ in range(rng.randint(5, 60))).capitalize() + "."
                  for _ in range(n_paragraphs)]
    return "\n  \n# Suppliers of Hosur\n\n" + "\n\n".join(paragraphs) + "\n\n  \t\n"


@pytest.fixture
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text file over 100 bytes streams, 7 bytes at a time (multi-byte characters cut in two)."""
    monkeypatch.setattr(textfile, "STREAM_BYTES", 100)
    monkeypatch.setattr(textfile, "BLOCK_BYTES", 7)


def read_whole(path: Path) -> Document:
    [doc] = read_documents(path)
    assert doc.reread is None
    return doc


def read_whole_unpatched(path: Path) -> Document:
    """Read whole, whatever the test patched."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textfile, "STREAM_BYTES", 1 << 30)
        return read_whole(path)


def read_streamed(path: Path) -> Document:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textfile, "STREAM_BYTES", 100)
        patch.setattr(textfile, "BLOCK_BYTES", 7)
        [doc] = read_documents(path)
    assert doc.reread is not None and doc.text == ""
    return doc


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_streamed_file_is_the_document_a_whole_read_gives(tmp_path: Path, bom: bytes) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes(bom + notes().encode("utf-8"))
    whole, streamed = read_whole(path), read_streamed(path)
    assert (streamed.title, streamed.title_source, streamed.source) == (whole.title, "heading", whole.source)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textfile, "BLOCK_BYTES", 7)
        assert "".join(streamed.blocks()) == whole.text
        assert content_hash_of(streamed, "40/8") == content_hash_of(whole, "40/8")
        assert chunk_document(streamed, "k", 40, 8) == chunk_document(whole, "k", 40, 8)


def test_stripping_blocks_keeps_inner_whitespace_and_drops_the_ends() -> None:
    blocks = ["  \n", "", " A", "b  ", "\n\n", "  ", "c d", " \t", "\n"]
    assert "".join(textfile.stripped(iter(blocks))) == "".join(blocks).strip()


STREAMED_BAD_FILES = {
    "whitespace only": b"  \n\t\n" * 40,
    "binary": b"abc\x00\x01\x02def" * 20,
    "not utf-8 late in the file": "café and more text ".encode() * 10 + "café".encode("latin-1"),
    "a character cut short at the end": "naïve text ".encode() * 20 + "é".encode()[:1],
}


@pytest.mark.parametrize("content", STREAMED_BAD_FILES.values(), ids=STREAMED_BAD_FILES.keys())
def test_a_streamed_file_is_refused_for_the_reason_a_whole_read_gives(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(UnreadableFile) as whole:
        read_documents(path)
    with pytest.MonkeyPatch.context() as patch, pytest.raises(UnreadableFile) as streamed:
        patch.setattr(textfile, "STREAM_BYTES", 100)
        patch.setattr(textfile, "BLOCK_BYTES", 7)
        read_documents(path)
    assert streamed.value.reason == whole.value.reason


def test_indexing_a_streamed_file_writes_what_indexing_it_whole_writes(tmp_path: Path, tiny_blocks: None) -> None:
    path = tmp_path / "notes.md"
    path.write_text(notes(), encoding="utf-8")
    tables = []
    for name, doc in (("whole", read_whole_unpatched(path)), ("streamed", read_paths([path]).documents[0])):
        with closing(SQLiteStore(str(tmp_path / f"{name}.db"))) as store:
            report = index_documents(store, BagOfWordsEmbedder(), [doc], SETTINGS)
            assert report.added == 1 and report.chunks_written > 10
            table = store.chunk_table()
            [stored] = store.active_documents().values()
            tables.append((table.texts, table.text_hashes, stored.content_hash))
    assert tables[0] == tables[1]


def test_a_streamed_file_unchanged_is_unchanged_and_a_changed_one_updated(
        tmp_path: Path, tiny_blocks: None) -> None:
    path = tmp_path / "notes.md"
    path.write_text(notes(), encoding="utf-8")
    with closing(SQLiteStore(str(tmp_path / "index.db"))) as store:
        embedder = BagOfWordsEmbedder()
        index_documents(store, embedder, read_paths([path]).documents, SETTINGS)
        again = index_documents(store, embedder, read_paths([path]).documents, SETTINGS)
        assert again.unchanged == 1 and not again.changed
        path.write_text(notes(seed=2), encoding="utf-8")
        changed = index_documents(store, embedder, read_paths([path]).documents, SETTINGS)
        assert changed.updated == 1
        assert store.chunk_table().texts[0] in notes(seed=2)


def test_chunks_of_a_streamed_file_wait_in_a_temporary_file(tmp_path: Path, tiny_blocks: None) -> None:
    path = tmp_path / "notes.md"
    path.write_text(notes(), encoding="utf-8")
    with closing(SQLiteStore(str(tmp_path / "index.db"))) as store:
        change, _ = plan_change(store, read_paths([path]).documents, SETTINGS)
    [(doc, _, chunks)] = change.upserts
    assert isinstance(chunks, SpilledChunks)
    assert [c for c, _ in chunks] == chunk_document(read_whole_unpatched(path), doc.title, 40, 8)
    assert all(h == sha(c.text) for c, h in chunks)


def test_a_file_that_changes_between_hashing_and_chunking_is_skipped(tmp_path: Path) -> None:
    texts = iter(["The first text. It was hashed.", "Another text. It was chunked."])

    def reread() -> Iterator[str]:
        return iter([next(texts)])

    doc = Document("notes", "", str(tmp_path / "notes.txt"), "file", reread=reread)
    with closing(SQLiteStore(str(tmp_path / "index.db"))) as store:
        change, report = plan_change(store, [doc], SETTINGS)
    assert change.empty and report.added == 0
    assert [(s.path, "changed while" in s.reason) for s in report.skipped] == [(doc.source, True)]


def test_spilled_chunks_read_back_in_order_even_in_two_loops_at_once() -> None:
    rows = [(Chunk("k", i, f"text {i} " * i, i), sha(f"text {i} " * i)) for i in range(50)]
    spilled = SpilledChunks(iter(rows))
    assert len(spilled) == 50
    assert [(a, b) for a, b in zip(spilled, spilled, strict=True)] == [(r, r) for r in rows]
    assert rows[7] in spilled
    spilled.close()
