"""examples/own_docs, the walk-through folder: every file is read (the PDF with its pages), no
title is a real name, and the two-hop chain its README promises is in the text."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from make_documents import OWN_DOCS
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.ingest.pipeline import IndexReport
from hopgraph.ingest.readers import read_documents, supported

FILES = {"q3_supplier_review.pdf", "visit_notes_may.docx", "pump_line_update.md", "friction_supplier_call.txt"}
QUESTION = "Which town do the disc castings of Tessaro Brakes come from?"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[HopGraph, IndexReport]:
    # Small chunks, so the two-page PDF is cut into several chunks starting on both pages.
    settings = replace(Settings(), chunk_tokens=40, chunk_overlap=0)
    hg = HopGraph(str(tmp_path_factory.mktemp("own_docs") / "own.db"), settings, embedder=BagOfWordsEmbedder())
    yield hg, hg.index([OWN_DOCS])
    hg.close()


def test_the_folder_holds_the_four_documents_and_a_readme_that_is_not_indexed() -> None:
    assert {p.name for p in OWN_DOCS.iterdir() if supported(p)} == FILES
    assert (OWN_DOCS / "README").is_file() and "CC0" in (OWN_DOCS / "README").read_text(encoding="utf-8")


def test_every_file_is_read_and_none_skipped(indexed: tuple[HopGraph, IndexReport]) -> None:
    hg, report = indexed
    assert (report.documents, report.added, report.skipped) == (4, 4, [])
    assert {Path(source).name for source, _ in hg.store.active_documents()} == FILES


def test_the_pdf_is_read_with_both_pages_and_the_link_name_on_page_2(indexed: tuple[HopGraph, IndexReport]) -> None:
    table = indexed[0].store.chunk_table()
    rows = [row for row in range(len(table)) if table.sources[int(table.doc_ids[row])].endswith(".pdf")]
    assert {table.pages[row] for row in rows} == {1, 2}
    assert {table.source_of_row(row) for row in rows} == {"q3_supplier_review.pdf#p1", "q3_supplier_review.pdf#p2"}
    pdf = read_documents(OWN_DOCS / "q3_supplier_review.pdf")[0]
    assert [table.pages[row] for row in rows] == [pdf.page_at(pdf.text.index(table.texts[row])) for row in rows]
    assert pdf.page_at(pdf.text.index("Ravik Foundry")) == 2
    others = [row for row in range(len(table)) if row not in rows]
    assert all(table.pages[row] is None for row in others)


def test_no_title_is_a_real_name(indexed: tuple[HopGraph, IndexReport]) -> None:
    """No headings, no metadata titles: every title is a file stem, so linking by titles finds no
    link and the second hop needs names found in the text (another engineer's work)."""
    table = indexed[0].store.chunk_table()
    assert set(table.title_sources.values()) == {"file"}
    assert sorted(table.titles.values()) == sorted(Path(name).stem for name in FILES)


def test_the_readme_question_has_its_chain_in_the_text() -> None:
    readme = (OWN_DOCS / "README").read_text(encoding="utf-8")
    assert QUESTION in readme and "Expected answer: Dharwad." in readme
    report, visit = (read_documents(OWN_DOCS / name)[0].text for name in ("q3_supplier_review.pdf",
                                                                           "visit_notes_may.docx"))
    assert "Tessaro Brakes" in report and "Ravik Foundry" in report
    assert "Ravik Foundry" in visit and "Dharwad" in visit
    assert "Dharwad" not in report  # the answer is one hop away, not in the first document
