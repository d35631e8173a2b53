"""Small PDF and DOCX files for tests and examples, made without a PDF library.

    python tests/support/make_documents.py     # rewrites the committed files listed in FILES

PDFs are written by hand (`minimal_pdf`: PDF 1.4, one Helvetica font, one text object per page, an
xref table), so the fixtures need no dev-only tool and stay byte-for-byte reproducible; DOCX files
are written with python-docx and their zip entries re-dated, so they are reproducible too. Tests
import `minimal_pdf` and `write_docx` to make variants at run time.
"""

from __future__ import annotations

import io
import textwrap
import zipfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FORMATS = REPO / "tests" / "data" / "formats"
OWN_DOCS = REPO / "examples" / "own_docs"

LINE_CHARS = 88  # Helvetica 11 pt across a 468 pt text width
LINES_PER_PAGE = 46  # 14 pt leading from y = 720 down to the bottom margin
Table = Sequence[Sequence[str]]  # rows of cell texts
Block = str | Table


def _pdf_string(text: str) -> bytes:
    """A PDF literal string in WinAnsi (cp1252) with its delimiters escaped."""
    raw = text.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _page_stream(paragraphs: Sequence[str]) -> bytes:
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += [*textwrap.wrap(paragraph, LINE_CHARS), ""]
    if len(lines) > LINES_PER_PAGE:
        raise ValueError(f"{len(lines)} lines do not fit on one page ({LINES_PER_PAGE})")
    shown = b"".join(_pdf_string(line) + b" Tj T*\n" for line in lines)
    return b"BT /F1 11 Tf 14 TL 72 720 Td\n" + shown + b"ET"


def minimal_pdf(pages: Sequence[Sequence[str]], title: str | None = None) -> bytes:
    """A PDF whose page i shows the paragraphs `pages[i]` (an empty list: a page with no text);
    `title` goes into the document information dictionary as /Title."""
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % p for p in page_ids), len(pages)),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    for page_id, paragraphs in zip(page_ids, pages, strict=True):
        stream = _page_stream(paragraphs) if paragraphs else b""
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                       b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (page_id + 1))
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    info = b""
    if title is not None:
        objects.append(b"<< /Title %s /Producer (hopgraph make_documents.py) >>" % _pdf_string(title))
        info = b" /Info %d 0 R" % len(objects)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")  # the binary comment line marks the file as binary
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info, xref)
    return bytes(out)


def write_docx(path: Path, blocks: Sequence[Block], title: str | None = None, heading: str | None = None,
               merge_first_row: bool = False) -> Path:
    """A DOCX of paragraphs (str) and tables (rows of cells) in order. `title`: the core properties'
    title; `heading`: a first paragraph in the Heading 1 style; `merge_first_row`: the first table's
    first row is one merged cell (as a table caption row often is)."""
    import docx

    document = docx.Document()
    document.core_properties.title = title or ""
    if heading is not None:
        document.add_heading(heading, level=1)
    first_table = True
    for block in blocks:
        if isinstance(block, str):
            document.add_paragraph(block)
            continue
        table = document.add_table(rows=len(block), cols=len(block[0]))
        for row, cells in zip(table.rows, block, strict=True):
            for cell, text in zip(row.cells, cells, strict=True):
                cell.text = text
        if merge_first_row and first_table:
            merged = table.rows[0].cells[0].merge(table.rows[0].cells[-1])
            merged.text = block[0][0]
        first_table = False
    buffer = io.BytesIO()
    document.save(buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_redate(buffer.getvalue()))
    return path


def _redate(data: bytes) -> bytes:
    """The same zip with every entry dated 1980-01-01, so the file depends only on its content."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(zipfile.ZipInfo(info.filename, (1980, 1, 1, 0, 0, 0)), source.read(info.filename),
                            zipfile.ZIP_DEFLATED)
    return out.getvalue()


# --- the committed files ---------------------------------------------------------------------------

REPORT_PAGES = [
    ["Corvane Brake Systems reviewed its casting suppliers in the third quarter.",
     "Deliveries were on time for eleven of twelve weeks; one week slipped because of a rail strike."],
    ["Anvaya Foundry supplies the brake-disc castings from its plant in Hosur.",
     "Porosity rejects fell from 2.1 per cent to 0.8 per cent after the new sand mix."],
    ["Kallur Pig Iron Works remains the only source of pig iron for Anvaya Foundry.",
     "A second source will be qualified before the end of the year."],
]
REPORT_TITLE = "Casting suppliers, third quarter"
NOTES_BLOCKS: list[Block] = [
    "Meeting notes from the supplier day in Chakan.",
    "Halvek Components builds caliper housings for Corvane Brake Systems.",
    [["Shipments by month", "", ""], ["Month", "Housings", "Rejected"], ["July", "4,100", "12"],
     ["August", "3,950", "9"]],
    "The next review is planned for October.",
]
NOTES_TITLE = "Supplier day notes"

OWN_PDF_PAGES = [
    ["Tessaro Brakes, quarterly supplier review, prepared for the purchasing team.",
     "Pad compound volumes were flat against the second quarter. The friction supplier asked for a price "
     "increase of three per cent, which we declined until their new press line is running.",
     "Warranty claims on the rear drum assemblies fell to 0.4 per cent."],
    ["Our grey-iron disc castings still come from Ravik Foundry, which shipped 41,000 castings this "
     "quarter against an order of 40,000.",
     "Two lots were held for porosity and released after a second X-ray check. We will keep Ravik as the "
     "single source for discs through next year."],
]
OWN_DOCX_BLOCKS: list[Block] = [
    "Notes from my visit to Ravik Foundry, 14 to 15 May.",
    "Ravik Foundry runs a single plant, in Dharwad, on the industrial estate next to the old railway "
    "goods yard. About 220 people work there in two shifts.",
    "They melt in two induction furnaces and pour on one moulding line. The second line is still waiting "
    "for its power connection.",
    [["Item", "Figure"], ["Moulding line", "1"], ["Induction furnaces", "2"], ["Staff", "about 220"]],
    "The plant manager said they want to add machining so they can ship finished discs.",
]


def write_committed() -> list[Path]:
    """Write every committed PDF and DOCX file; returns their paths."""
    FORMATS.mkdir(parents=True, exist_ok=True)
    OWN_DOCS.mkdir(parents=True, exist_ok=True)
    pdfs = {FORMATS / "quarterly_report.pdf": minimal_pdf(REPORT_PAGES, REPORT_TITLE),
            OWN_DOCS / "q3_supplier_review.pdf": minimal_pdf(OWN_PDF_PAGES)}
    for path, data in pdfs.items():
        path.write_bytes(data)
    return [*pdfs,
            write_docx(FORMATS / "supplier_notes.docx", NOTES_BLOCKS, title=NOTES_TITLE, merge_first_row=True),
            write_docx(OWN_DOCS / "visit_notes_may.docx", OWN_DOCX_BLOCKS)]


if __name__ == "__main__":
    for written in write_committed():
        print(f"wrote {written.relative_to(REPO)} ({written.stat().st_size:,} bytes)")
