"""PDF and DOCX: text in order, pages, where the title came from, and every kind of bad file as an
UnreadableFile that names the file and the reason (never another exception)."""

from __future__ import annotations

import importlib
import io
import logging
import re
import zipfile
from pathlib import Path

import pytest
from make_documents import FORMATS, minimal_pdf, write_docx
from pypdf import PdfReader, PdfWriter

from hopgraph.errors import UnreadableFile
from hopgraph.ingest.chunking import chunk_document
from hopgraph.ingest.pdf import join_pages
from hopgraph.ingest.readers import expand_paths, read_documents
from hopgraph.records.documents import Document

REPORT = FORMATS / "quarterly_report.pdf"
NOTES = FORMATS / "supplier_notes.docx"


def only(path: Path) -> Document:
    docs = read_documents(path)
    assert len(docs) == 1
    return docs[0]


def unreadable(path: Path) -> str:
    """The reason `path` cannot be read; the error must name the file."""
    with pytest.raises(UnreadableFile) as caught:
        read_documents(path)
    assert caught.value.path == str(path) and str(path) in str(caught.value)
    return caught.value.reason


def encrypted(tmp_path: Path, user_password: str) -> Path:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(minimal_pdf([["Locked text."]]))))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as out:
        writer.write(out)
    return path


# --- PDF -------------------------------------------------------------------------------------------

def test_pdf_text_is_read_page_by_page_with_the_title_from_its_metadata() -> None:
    doc = only(REPORT)
    assert (doc.title, doc.title_source) == ("Casting suppliers, third quarter", "metadata")
    assert [number for _, number in doc.pages] == [1, 2, 3]
    for phrase, page in (("Corvane Brake Systems reviewed", 1), ("Anvaya Foundry supplies", 2),
                         ("Kallur Pig Iron Works", 3)):
        assert doc.page_at(doc.text.index(phrase)) == page
    assert doc.text.index("Corvane") < doc.text.index("Anvaya Foundry supplies") < doc.text.index("Kallur")


def test_pdf_without_a_title_or_with_a_blank_one_is_titled_by_the_file_stem(tmp_path: Path) -> None:
    for name, title in (("no_title.pdf", None), ("blank_title.pdf", "   ")):
        path = tmp_path / name
        path.write_bytes(minimal_pdf([["Some text."]], title))
        doc = only(path)
        assert (doc.title, doc.title_source) == (path.stem, "file")


def test_a_page_without_text_keeps_the_numbers_of_the_pages_after_it(tmp_path: Path) -> None:
    path = tmp_path / "gap.pdf"
    path.write_bytes(minimal_pdf([["First page."], [], ["Third page."]]))
    doc = only(path)
    assert doc.pages == ((0, 1), (len("First page.\n\n"), 3))
    assert doc.page_at(doc.text.index("Third")) == 3


def test_join_pages_records_where_each_page_starts() -> None:
    text, pages = join_pages(["  a  ", "", "bc\n", "   "])
    assert text == "a\n\nbc" and pages == ((0, 1), (3, 3))


def test_each_chunk_of_a_pdf_knows_the_page_it_starts_on() -> None:
    doc = only(REPORT)
    chunks = chunk_document(doc, doc.title, size=20, overlap=0)
    assert len(chunks) > 3
    for chunk in chunks:
        start = doc.text.index(chunk.text)
        assert chunk.page == doc.page_at(start)
    assert [c.page for c in chunks] == sorted(c.page for c in chunks)
    assert {c.page for c in chunks} == {1, 2, 3}


def test_chunks_of_a_document_without_pages_have_none() -> None:
    chunks = chunk_document(Document("t", "word " * 100, "s"), "t", size=20, overlap=0)
    assert {c.page for c in chunks} == {None}


def test_a_pdf_encrypted_with_a_password_is_unreadable(tmp_path: Path) -> None:
    assert "encrypted PDF" in unreadable(encrypted(tmp_path, "secret"))


def test_a_pdf_encrypted_with_an_empty_user_password_opens_as_a_viewer_would(tmp_path: Path) -> None:
    assert only(encrypted(tmp_path, "")).text == "Locked text."


def test_a_pdf_of_blank_pages_has_no_text_layer(tmp_path: Path) -> None:
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    writer.add_blank_page(612, 792)
    path = tmp_path / "scan.pdf"
    with path.open("wb") as out:
        writer.write(out)
    reason = unreadable(path)
    assert "no text layer" in reason and "2 page(s)" in reason and "OCR" in reason


@pytest.mark.parametrize(("content", "says"), [
    (b"", "file is empty"),
    (b"this is not a PDF at all\n", "not a readable PDF"),
    (REPORT.read_bytes()[:900], "not a readable PDF"),  # cut off in the middle
    (b"%PDF-1.4\n" + bytes(range(256)) * 4, "not a readable PDF"),
])
def test_a_broken_pdf_is_unreadable_quietly(tmp_path: Path, caplog, content: bytes, says: str) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING):
        assert says in unreadable(path)
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]  # one skip line says it, not pypdf too


# --- DOCX ------------------------------------------------------------------------------------------

def test_docx_paragraphs_and_table_rows_are_read_in_order_with_the_metadata_title() -> None:
    doc = only(NOTES)
    assert (doc.title, doc.title_source) == ("Supplier day notes", "metadata")
    assert doc.pages == ()
    order = ["Meeting notes", "Halvek Components", "Shipments by month", "Month | Housings | Rejected",
             "July | 4,100 | 12", "August | 3,950 | 9", "The next review"]
    positions = [doc.text.index(part) for part in order]
    assert positions == sorted(positions)
    assert doc.text.count("Shipments by month") == 1  # a merged cell is read once, not once per column
    assert "July | 4,100 | 12\nAugust" in doc.text  # a table's rows stay together, one line each


def test_docx_title_from_a_heading_else_the_file_stem(tmp_path: Path) -> None:
    headed = only(write_docx(tmp_path / "headed.docx", ["Body text."], heading="Ravik Foundry"))
    assert (headed.title, headed.title_source) == ("Ravik Foundry", "heading")
    plain = only(write_docx(tmp_path / "plain_notes.docx", ["Body text.", "More text."]))
    assert (plain.title, plain.title_source) == ("plain_notes", "file")
    assert plain.text == "Body text.\n\nMore text."


def test_docx_headings_are_written_as_markdown_headings_so_answers_never_quote_them(tmp_path: Path) -> None:
    from hopgraph.text.sentences import prose_sentences

    doc = only(write_docx(tmp_path / "visit.docx", ["Ravik Foundry melts in two furnaces."], heading="Findings"))
    assert doc.text == "# Findings\n\nRavik Foundry melts in two furnaces."
    assert (doc.title, doc.title_source) == ("Findings", "heading")  # the title has no mark
    assert prose_sentences(doc.text) == ["Ravik Foundry melts in two furnaces."]


def test_docx_without_core_properties_is_not_titled_word_document(tmp_path: Path) -> None:
    source = zipfile.ZipFile(write_docx(tmp_path / "full.docx", ["Body text."]))
    path = tmp_path / "bare.docx"
    with zipfile.ZipFile(path, "w") as bare:
        for name in source.namelist():
            data = source.read(name)
            if name == "_rels/.rels":  # drop the relationship to docProps/core.xml, then the part itself
                data = re.sub(rb"<Relationship [^>]*core-properties[^>]*/>", b"", data)
            if name != "docProps/core.xml":
                bare.writestr(name, data)
    doc = only(path)
    assert (doc.title, doc.title_source) == ("bare", "file")


def junk_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", b"\x00\x01 not xml at all")
        archive.writestr("junk.bin", bytes(range(256)))
    return buffer.getvalue()


@pytest.mark.parametrize(("content", "says"), [
    (b"", "file is empty"),
    (junk_zip(), "not a readable DOCX file"),
    (b"PK\x03\x04 a zip header and nothing else", "not a readable DOCX file"),
    (b"plain text saved with the wrong suffix", "not a readable DOCX file"),
])
def test_a_broken_docx_is_unreadable(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(content)
    assert says in unreadable(path)


def test_a_docx_with_no_text_is_unreadable(tmp_path: Path) -> None:
    assert unreadable(write_docx(tmp_path / "empty.docx", [" ", ""])) == "DOCX has no text"


# --- shared: folders, missing extras, files that cannot be read -----------------------------------

def test_folders_list_pdf_and_docx_files(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(b"x")
    (tmp_path / "b.DOCX").write_bytes(b"x")
    (tmp_path / "c.doc").write_bytes(b"x")  # the old binary Word format is not read
    assert [p.name for p in expand_paths([tmp_path])] == ["a.pdf", "b.DOCX"]


@pytest.mark.parametrize(("path", "module", "extra"), [(REPORT, "pypdf", "pdf"), (NOTES, "docx", "docx")])
def test_without_its_extra_a_format_is_unreadable_with_the_install_line(monkeypatch, path: Path, module: str,
                                                                        extra: str) -> None:
    real = importlib.import_module

    def import_module(name: str, package: str | None = None):  # as if the extra were not installed
        if name == module:
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", import_module)
    assert f"pip install 'hopgraph[{extra}]'" in unreadable(path)


@pytest.mark.parametrize("name", ["quarterly_report.pdf", "supplier_notes.docx"])
def test_a_file_that_cannot_be_read_is_unreadable_with_the_system_reason(monkeypatch, name: str) -> None:
    real = Path.read_bytes
    target = FORMATS / name

    def read_bytes(self: Path) -> bytes:
        if self == target:
            raise OSError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert unreadable(target) == "cannot read the file (Permission denied)"
