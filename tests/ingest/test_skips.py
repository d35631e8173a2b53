"""Bad input inside a folder is a counted skip with its reason: never a crash, never a half-written
index, and the rest of the folder is indexed."""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest
from make_documents import FORMATS, minimal_pdf
from pypdf import PdfReader, PdfWriter
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.ingest.pipeline import read_paths


def pdf_writer_bytes(writer: PdfWriter) -> bytes:
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(minimal_pdf([["Secret plans."]]))))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    return pdf_writer_bytes(writer)


def scanned_pdf() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    return pdf_writer_bytes(writer)


def junk_docx() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("junk.bin", bytes(range(256)) * 4)
    return buffer.getvalue()


# name → (content, what the reason says); read in sorted order, as a folder is
BAD = {
    "a_locked.pdf": (encrypted_pdf(), "encrypted PDF"),
    "b_broken.docx": (junk_docx(), "not a readable DOCX file"),
    "c_empty.pdf": (b"", "file is empty"),
    "d_scan.pdf": (scanned_pdf(), "no text layer"),
    "e_latin1.txt": ("Café notes".encode("latin-1"), "not UTF-8 text"),
    "f_malformed.json": (b'[{"title": "A", "text": ', "malformed JSON at line 1"),
    "g_empty.md": (b"", "file is empty"),
    "h_denied.txt": (b"Readable text, but not for us.", "cannot read the file (Permission denied)"),
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every kind of bad file beside three good ones (text, PDF, DOCX)."""
    root = tmp_path / "inbox"
    root.mkdir()
    for name, (content, _) in BAD.items():
        (root / name).write_bytes(content)
    (root / "good_notes.txt").write_text("Ravik Foundry ships castings from Dharwad.", encoding="utf-8")
    shutil.copy(FORMATS / "quarterly_report.pdf", root / "good_report.pdf")
    shutil.copy(FORMATS / "supplier_notes.docx", root / "good_notes.docx")
    denied, real = root / "h_denied.txt", Path.read_bytes

    def read_bytes(self: Path) -> bytes:  # as root, chmod 000 would not stop the read
        if self == denied:
            raise OSError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    return root


def test_each_bad_file_is_skipped_with_its_reason_and_the_good_ones_are_read(folder: Path) -> None:
    read = read_paths([folder])
    assert [Path(skip.path).name for skip in read.skipped] == list(BAD)
    for skip, (_, says) in zip(read.skipped, BAD.values(), strict=True):
        assert says in skip.reason
    assert sorted(Path(d.source).name for d in read.documents) == ["good_notes.docx", "good_notes.txt",
                                                                     "good_report.pdf"]


def test_an_index_run_writes_the_good_files_and_reports_the_skips(folder: Path, tmp_path: Path) -> None:
    with HopGraph(str(tmp_path / "s.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg:
        report = hg.index([folder])
        assert report.added == 3 and len(report.skipped) == len(BAD)
        assert {Path(source).name for source, _ in hg.store.active_documents()} == {
            "good_notes.docx", "good_notes.txt", "good_report.pdf"}
    with sqlite3.connect(tmp_path / "s.db") as db:
        stats = json.loads(db.execute("SELECT stats FROM runs").fetchone()[0])
    assert len(stats["skipped"]) == len(BAD)  # the run log keeps what was skipped and why


def test_a_file_that_turns_bad_keeps_what_an_earlier_run_indexed_from_it(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text("Alpha text.", encoding="utf-8")
    (root / "b.txt").write_text("Beta text.", encoding="utf-8")
    with HopGraph(str(tmp_path / "s.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.index([root])
        (root / "b.txt").write_bytes(b"\xff\xfe broken now")
        report = hg.index([root])
        assert (report.withdrawn, len(report.skipped)) == (0, 1)  # an unreadable file is not a deleted one
        assert {title for _, title in hg.store.active_documents()} == {"a", "b"}


def test_when_every_file_is_skipped_nothing_is_read_and_the_error_names_the_reasons(tmp_path: Path) -> None:
    for name in ("one.pdf", "two.docx", "three.txt"):
        (tmp_path / name).write_bytes(b"")
    with pytest.raises(InputError) as caught:
        read_paths([tmp_path])
    message = str(caught.value)
    assert message.startswith("nothing to index: all 3 files were skipped — ")
    assert message.count("file is empty") == 3


def test_the_error_names_at_most_five_reasons(tmp_path: Path) -> None:
    for i in range(7):
        (tmp_path / f"{i}.txt").write_bytes(b"")
    with pytest.raises(InputError, match=r"all 7 files were skipped .*; and 2 more$"):
        read_paths([tmp_path])


def test_an_empty_folder_is_no_error(tmp_path: Path) -> None:
    read = read_paths([tmp_path])
    assert (read.documents, read.skipped) == ([], [])


def test_a_file_whose_name_is_not_utf8_is_skipped_with_a_line_and_the_rest_indexed(tmp_path: Path) -> None:
    """Issue 25 (3): `caf\\xe9.txt` (a Latin-1 name) made the whole folder fail with a traceback."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "good.txt").write_text("Good text about Alpha.", encoding="utf-8")
    with open(os.fsencode(root) + b"/caf\xe9.txt", "wb") as latin1:
        latin1.write(b"Text behind a Latin-1 name.")
    with HopGraph(str(tmp_path / "s.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg:
        report = hg.index([root])
        assert {title for _, title in hg.store.active_documents()} == {"good"}
    [skip] = report.skipped
    assert skip.path.endswith("caf\\xe9.txt") and "not valid UTF-8" in skip.reason


def test_a_file_named_directly_whose_name_is_not_utf8_is_one_line_error(tmp_path: Path) -> None:
    path = os.fsencode(tmp_path) + b"/caf\xe9.txt"
    with open(path, "wb") as latin1:
        latin1.write(b"Text behind a Latin-1 name.")
    with pytest.raises(InputError, match=r"caf\\xe9.txt: its name is not valid UTF-8"):
        read_paths([os.fsdecode(path)])


def test_a_dangling_link_is_skipped_with_a_line(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Alpha text.", encoding="utf-8")
    (tmp_path / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    read = read_paths([tmp_path])
    assert [Path(d.source).name for d in read.documents] == ["a.txt"]
    [skip] = read.skipped
    assert Path(skip.path).name == "gone.txt" and "does not exist" in skip.reason
