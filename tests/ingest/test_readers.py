"""Reading files into Documents: titles, formats, folder expansion, and errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path, PurePath

import pytest

from hopgraph.errors import HopgraphError, InputError
from hopgraph.ingest import readers
from hopgraph.ingest.readers import expand_paths, read_documents
from hopgraph.records.documents import Document


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def only_document(path: Path) -> Document:
    docs = read_documents(path)
    assert len(docs) == 1
    return docs[0]


# --- text and markdown -------------------------------------------------------------------------

def test_txt_title_comes_from_a_leading_hash_heading(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "notes.txt", "# Big Stone Gap\n\nA film by Adriana Trigiani.\n"))
    assert (doc.title, doc.title_source) == ("Big Stone Gap", "heading")
    assert "A film by Adriana Trigiani." in doc.text
    assert doc.source == str(tmp_path / "notes.txt")


def test_txt_without_heading_is_titled_by_the_file_stem(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "greenwich_village.txt", "A neighborhood in Manhattan.\n"))
    assert (doc.title, doc.title_source) == ("greenwich_village", "file")
    assert doc.text == "A neighborhood in Manhattan."


def test_markdown_subheading_is_not_a_title(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "page.md", "## Section\nBody text here.\n"))
    assert (doc.title, doc.title_source) == ("page", "file")


def test_markdown_file_is_read_with_its_heading_title(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "page.md", "# Stone Age\nA prehistoric period.\n"))
    assert doc.title == "Stone Age"
    assert "A prehistoric period." in doc.text


def test_utf8_byte_order_mark_does_not_reach_the_title(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "bom.txt", "\ufeff# Café Society\nText.".encode()))
    assert doc.title == "Café Society"


def test_empty_hash_heading_falls_back_to_the_file_stem(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "untitled.txt", "# \nSome body text.\n"))
    assert (doc.title, doc.title_source) == ("untitled", "file")


# --- HTML --------------------------------------------------------------------------------------

def test_html_title_tag_is_the_title_and_script_and_style_are_dropped(tmp_path: Path) -> None:
    html = ("<html><head><title>Gap Inc.</title><style>.secret-style { color: red }</style>"
            "<script>var secretScript = 1;</script></head>"
            "<body><h1>Gap</h1><p>An American clothing retailer.</p><script>alert('popup')</script>"
            "<noscript>enable javascript</noscript></body></html>")
    doc = only_document(write(tmp_path / "gap.html", html))
    assert (doc.title, doc.title_source) == ("Gap Inc.", "html")
    assert "An American clothing retailer." in doc.text
    for hidden in ("secret-style", "secretScript", "popup", "enable javascript"):
        assert hidden not in doc.text


def test_html_with_an_empty_title_tag_is_titled_by_the_file_stem(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "shop.html", "<html><head><title> </title></head><body>Hats.</body></html>"))
    assert (doc.title, doc.title_source) == ("shop", "file")


def test_html_without_title_tag_is_titled_by_the_file_stem(tmp_path: Path) -> None:
    doc = only_document(write(tmp_path / "retailer.htm", "<html><body><p>Clothes.</p></body></html>"))
    assert (doc.title, doc.title_source) == ("retailer", "file")
    assert doc.text == "Clothes."


# --- JSON and JSON Lines -----------------------------------------------------------------------

def test_json_list_of_title_text_objects_gives_one_document_each(tmp_path: Path) -> None:
    records = [{"title": "Donna Gigliotti", "text": "A film producer."},
               {"title": "Greenwich Village", "text": "A neighborhood."}]
    docs = read_documents(write(tmp_path / "docs.json", json.dumps(records)))
    assert [(d.title, d.text) for d in docs] == [(r["title"], r["text"]) for r in records]
    assert {d.title_source for d in docs} == {"record"}


def test_hotpotqa_records_give_one_document_per_context_title_first_text_wins(tmp_path: Path) -> None:
    records = [
        {"_id": "q1", "question": "?", "answer": "!", "context": [
            ["Big Stone Gap (film)", ["Big Stone Gap is a film.", " It was directed by Adriana Trigiani."]],
            ["Adriana Trigiani", ["Adriana Trigiani is an author."]]]},
        {"_id": "q2", "question": "?", "answer": "!", "context": [
            ["Adriana Trigiani", ["A different paragraph that must not replace the first."]],
            ["Stone Age", ["The Stone Age was a period."]]]},
    ]
    docs = read_documents(write(tmp_path / "hotpot.json", json.dumps(records)))
    by_title = {d.title: d.text for d in docs}
    assert [d.title for d in docs] == ["Big Stone Gap (film)", "Adriana Trigiani", "Stone Age"]
    assert "Big Stone Gap is a film." in by_title["Big Stone Gap (film)"]
    assert "It was directed by Adriana Trigiani." in by_title["Big Stone Gap (film)"]
    assert by_title["Adriana Trigiani"] == "Adriana Trigiani is an author."
    assert {d.title_source for d in docs} == {"record"}


def test_jsonl_reads_one_record_per_line_and_skips_blank_lines(tmp_path: Path) -> None:
    lines = [json.dumps({"title": "A", "text": "First."}), "", json.dumps({"title": "B", "text": "Second."}), ""]
    docs = read_documents(write(tmp_path / "docs.jsonl", "\n".join(lines)))
    assert [(d.title, d.text) for d in docs] == [("A", "First."), ("B", "Second.")]


def test_json_record_with_empty_text_is_skipped(tmp_path: Path) -> None:
    records = [{"title": "Empty", "text": "   "}, {"title": "Full", "text": "Words."}]
    docs = read_documents(write(tmp_path / "docs.json", json.dumps(records)))
    assert [d.title for d in docs] == ["Full"]


# --- folder expansion --------------------------------------------------------------------------

def test_folder_is_expanded_recursively_to_supported_files_only(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    wanted = {write(root / "a.txt", "a"), write(root / "sub" / "b.md", "b"),
              write(root / "sub" / "deeper" / "c.json", "[]"), write(root / "d.HTML", "<p>d</p>"),
              write(root / "e.jsonl", "{}")}
    write(root / "image.png", b"\x89PNG")
    write(root / "table.csv", "a,b")
    write(root / "sub" / "README", "no suffix")
    files = expand_paths([root])
    assert set(files) == wanted
    assert len(files) == len(wanted)


def test_files_named_directly_are_kept_alongside_folder_contents(tmp_path: Path) -> None:
    single = write(tmp_path / "single.txt", "x")
    folder_file = write(tmp_path / "folder" / "inner.md", "y")
    assert expand_paths([single, tmp_path / "folder"]) == [single, folder_file]


def test_folder_with_a_supported_suffix_is_not_taken_for_a_file(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    inner = write(root / "archive.txt" / "inner.md", "text")
    assert expand_paths([root]) == [inner]


# --- errors that name the file -----------------------------------------------------------------

def test_missing_path_is_an_input_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.txt"
    with pytest.raises(InputError) as caught:
        expand_paths([missing])
    assert str(missing) in str(caught.value)


def test_unsupported_suffix_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "table.csv", "a,b\n1,2\n")
    with pytest.raises(InputError) as caught:
        expand_paths([path])
    assert str(path) in str(caught.value)
    assert ".csv" in str(caught.value)


BAD_FILES = {
    "empty": ("empty.txt", b""),
    "whitespace only": ("blank.md", b"  \n\t\n"),
    "binary": ("binary.txt", b"abc\x00\x01\x02def"),
    "not utf-8": ("latin1.txt", "café".encode("latin-1")),
    "malformed json": ("broken.json", b'[\n  {"title": "A", "text": "ok"},\n  {"title": oops}\n]'),
    "json object, not list": ("object.json", b'{"title": "A", "text": "t"}'),
    "record neither format": ("neither.json", b'[{"title": "A", "text": "t"}, {"name": "B", "body": "u"}]'),
    "record not an object": ("strings.json", b'["just a string"]'),
    "malformed hotpot context": ("hotpot.json", b'[{"_id": "x", "context": [["A", "not a list"]]}]'),
    "html without text": ("blank.html", b"<html><head><title>T</title></head><body> </body></html>"),
}


@pytest.mark.parametrize("name, content", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_unreadable_file_is_an_input_error_naming_the_file(tmp_path: Path, name: str, content: bytes) -> None:
    path = write(tmp_path / name, content)
    with pytest.raises(InputError) as caught:
        read_documents(path)
    assert str(path) in str(caught.value)


def test_malformed_json_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.json", '[\n  {"title": "A", "text": "ok"},\n  {"title": oops}\n]')
    with pytest.raises(InputError, match=r"line 3\b"):
        read_documents(path)


def test_malformed_jsonl_error_names_the_line(tmp_path: Path) -> None:
    lines = [json.dumps({"title": "A", "text": "ok"}), json.dumps({"title": "B", "text": "ok"}), '{"title": oops}']
    path = write(tmp_path / "broken.jsonl", "\n".join(lines))
    with pytest.raises(InputError, match=r"line 3\b"):
        read_documents(path)


def test_record_that_is_neither_format_error_names_the_record(tmp_path: Path) -> None:
    path = write(tmp_path / "neither.json", json.dumps([{"title": "A", "text": "t"}, {"name": "B"}]))
    with pytest.raises(InputError, match=r"record 1\b"):
        read_documents(path)


# --- the registry ------------------------------------------------------------------------------


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test are forgotten after it."""
    monkeypatch.setattr(readers, "_READERS", dict(readers._READERS))


def read_toy(path: PurePath, data: bytes) -> list[Document]:
    """`title: text` a line: one document per line."""
    lines = data.decode().splitlines()
    return [Document(*map(str.strip, line.split(":", 1)), source=str(path), title_source="record") for line in lines]


def test_every_built_in_suffix_has_a_described_reader() -> None:
    assert readers.suffixes() == [".docx", ".htm", ".html", ".json", ".jsonl", ".markdown", ".md", ".pdf", ".txt"]
    assert all(suffix in readers.described() for suffix in readers.suffixes())


def test_a_registered_reader_reads_its_suffix_and_is_walked_and_listed(registry: None, tmp_path: Path) -> None:
    readers.register(".toy", read_toy, "title: text lines")
    folder = tmp_path / "folder"
    toy = write(folder / "pets.TOY", "Rex: a dog\nTom: a cat\n")
    write(folder / "skip.csv", "a,b\n")
    assert expand_paths([folder]) == [toy]  # the folder walk takes it, and still not the .csv
    assert [(d.title, d.text) for d in read_documents(toy)] == [("Rex", "a dog"), ("Tom", "a cat")]
    assert ".toy (title: text lines)" in readers.described()
    with pytest.raises(InputError, match=r"use one of .*\.pdf, \.toy, \.txt"):
        expand_paths([write(tmp_path / "x.csv", "a")])


@pytest.mark.parametrize("suffix", [".txt", "toy", ".Toy", "."])
def test_a_reader_suffix_must_be_new_lower_case_with_its_dot(registry: None, suffix: str) -> None:
    with pytest.raises(HopgraphError, match="cannot register a reader"):
        readers.register(suffix, read_toy, "bad")


# --- property tests (hypothesis): any bytes under any name are documents or one UnreadableFile ---------

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402  (after the skip: a dev-only extra)
from hypothesis import strategies as st  # noqa: E402
from make_documents import FORMATS, minimal_pdf  # noqa: E402

from hopgraph.errors import UnreadableFile  # noqa: E402
from hopgraph.ingest.readers import documents_in_bytes, suffixes  # noqa: E402

EXAMPLES = 150
FUZZED = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
suffixes = st.sampled_from([*suffixes(), ".exe", "", ".TXT", ".Json"])
names = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"), min_size=1, max_size=40)
PDF = minimal_pdf([["A first page about Anvaya Foundry."], ["A second page."]])
DOCX = (FORMATS / "supplier_notes.docx").read_bytes()
ENCODINGS = ["utf-8", "utf-16", "latin-1", "cp1252", "shift_jis", "utf-8-sig"]


def read_or_refuse(name: str, data: bytes) -> list[Document]:
    """What a reader may do with bad input: give documents with text, or refuse with UnreadableFile."""
    try:
        docs = documents_in_bytes(Path(name), data)
    except UnreadableFile as err:
        assert str(err).strip() and "\n" not in str(err).strip()  # one line naming the problem
        return []
    assert all(isinstance(d, Document) and d.text.strip() for d in docs)
    return docs


@FUZZED
@given(name=names, suffix=suffixes, data=st.binary(max_size=2048))
def test_random_bytes_under_any_name_are_read_or_refused_in_one_line(name: str, suffix: str, data: bytes) -> None:
    read_or_refuse(name + suffix, data)


@FUZZED
@given(text=st.text(max_size=500), encoding=st.sampled_from(ENCODINGS),
       suffix=st.sampled_from([".txt", ".md", ".html"]))
def test_text_in_any_encoding_is_read_or_refused(text: str, encoding: str, suffix: str) -> None:
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode(encoding, "replace")
    read_or_refuse("doc" + suffix, data)


def _mutated(base: bytes, cuts: list[tuple[int, int]]) -> bytes:
    """`base` with bytes overwritten at the given (position, value) places: a damaged file."""
    data = bytearray(base)
    for position, value in cuts:
        data[position % len(data)] = value
    return bytes(data)


@FUZZED
@given(cuts=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), max_size=12),
       keep=st.floats(0.05, 1.0))
def test_damaged_pdf_and_docx_bytes_are_read_or_refused(cuts: list[tuple[int, int]], keep: float) -> None:
    for suffix, base in ((".pdf", PDF), (".docx", DOCX)):
        damaged = _mutated(base, cuts)
        read_or_refuse("damaged" + suffix, damaged[: max(1, int(len(damaged) * keep))])
