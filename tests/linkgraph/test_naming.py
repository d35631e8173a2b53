"""Names when indexing: the text by default, titles only when they are names, per document."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

import hopgraph.engine
from hopgraph.config import Settings
from hopgraph.errors import InputError
from hopgraph.eval import default_store, run_eval
from hopgraph.ingest.pipeline import graph_signature, index_documents
from hopgraph.linkgraph import aboutness, naming
from hopgraph.records.documents import Document
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.text import nlp
from hopgraph.text.nlp import LEAD, Concept

# The same paragraphs as TINY_CORPUS, titled by ids as a user's files would be.
UNTITLED = [Document(f"doc-{i:05d}", d.text, "ids") for i, d in enumerate(TINY_CORPUS)]


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """nlp.concepts without spaCy: a paragraph's lead is the span before its first " is "; returns
    the texts it was asked to parse."""
    calls: list[str] = []

    def fake_concepts(texts, nlp=None, batch_size=64, n_process=1, progress=None):
        calls.extend(texts)
        if progress:  # as spaCy's loop does: (done, total) of this call's texts
            progress(len(texts), len(texts))
        return [[Concept(t[: t.index(" is ") + 1], LEAD, 0)] if " is " in t else [] for t in texts]

    monkeypatch.setattr(nlp, "concepts", fake_concepts)
    return calls


def names_table(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT n.surface, n.kind, d.title FROM names n JOIN documents d ON d.id = n.doc_id "
                          "ORDER BY n.id").fetchall()


def test_an_id_or_a_file_stem_is_no_name_but_a_title_the_text_mentions_is(tmp_path: Path, parsed) -> None:
    store = SQLiteStore(str(tmp_path / "x.db"))
    stem = Document("Big Stone Gap", "Big Stone Gap is a film.", "big.txt", title_source="file")
    heading = Document("Donna Gigliotti", "A film producer.", "d.md", title_source="heading")
    docs = [UNTITLED[0], TINY_CORPUS[1], stem, heading]
    report = index_documents(store, BagOfWordsEmbedder(), docs, Settings())
    # the record titled by its subject (the text says so) and the heading are names; the id
    # and the stem are not, even when the text happens to say the stem
    assert report.titles_as_names == 2
    titles = {surface for surface, kind, _ in names_table(tmp_path / "x.db") if kind == "title"}
    assert titles == {"Adriana Trigiani", "Donna Gigliotti"}
    store.close()


def test_untitled_documents_are_named_by_their_text_and_linked(tmp_path: Path, parsed: list[str]) -> None:
    db = tmp_path / "x.db"
    store = SQLiteStore(str(db))
    report = index_documents(store, BagOfWordsEmbedder(), UNTITLED, Settings())
    names = names_table(db)
    assert ("Big Stone Gap", "text", "doc-00000") in names
    assert ("Adriana Trigiani", "text", "doc-00001") in names
    assert not any(surface.startswith("doc-") for surface, _, _ in names)  # ids never name anything
    assert report.links > 0 and report.titles_as_names == 0 and report.names_from == "auto"
    assert len(parsed) == len(UNTITLED) and "read_names" in report.seconds
    store.close()


def test_titles_that_are_names_join_the_names_from_text(tmp_path: Path, parsed: list[str]) -> None:
    db = tmp_path / "x.db"
    store = SQLiteStore(str(db))
    report = index_documents(store, BagOfWordsEmbedder(), TINY_CORPUS, Settings())
    names = names_table(db)
    assert ("Big Stone Gap (film)", "title", "Big Stone Gap (film)") in names
    assert ("Big Stone Gap", "title", "Big Stone Gap (film)") in names  # the text's name merged into the title's
    assert report.titles_as_names == len(TINY_CORPUS)
    store.close()


def test_a_document_whose_title_is_a_name_is_named_by_its_title_alone(tmp_path: Path, parsed: list[str]) -> None:
    # Issue 21 part 2: names read from titled paragraphs did not hold on held-out halves; an
    # untitled document beside it is still named by its text.
    titled = Document("Harbor Lights", "Harbor Lights film is a drama starring Orla Vance.", "t")
    untitled = Document("doc-00007", "Orla Vance is an English actress.", "t")
    store = SQLiteStore(str(tmp_path / "x.db"))
    report = index_documents(store, BagOfWordsEmbedder(), [titled, untitled], Settings())
    names = names_table(tmp_path / "x.db")
    assert ("Orla Vance", "text", "doc-00007") in names
    assert [n for n in names if n[2] == "Harbor Lights"] == [("Harbor Lights", "title", "Harbor Lights")]
    assert report.titles_as_names == 1 and report.links == 1  # the film's mention of the actress
    store.close()


def test_a_heading_title_keeps_the_names_of_its_text(tmp_path: Path, parsed: list[str]) -> None:
    # A heading is often no subject's name as written ("Plant Profile: …"): only records lose their text names.
    heading = Document("Harbor Lights", "Harbor Lights film is a drama starring Orla Vance.", "h.md",
                       title_source="heading")
    store = SQLiteStore(str(tmp_path / "x.db"))
    index_documents(store, BagOfWordsEmbedder(), [heading], Settings())
    assert ("Harbor Lights film", "text", "Harbor Lights") in names_table(tmp_path / "x.db")
    store.close()


def test_names_from_titles_reads_no_text_and_text_uses_no_title(tmp_path: Path, parsed: list[str]) -> None:
    titled = SQLiteStore(str(tmp_path / "t.db"))
    index_documents(titled, BagOfWordsEmbedder(), TINY_CORPUS, Settings(names_from="titles"))
    assert parsed == [] and {k for _, k, _ in names_table(tmp_path / "t.db")} == {"title"}
    text = SQLiteStore(str(tmp_path / "x.db"))
    index_documents(text, BagOfWordsEmbedder(), TINY_CORPUS, Settings(names_from="text"))
    assert {k for _, k, _ in names_table(tmp_path / "x.db")} == {"text"}
    titled.close()
    text.close()


def test_reindexing_parses_only_new_paragraphs(tmp_path: Path, parsed: list[str]) -> None:
    store = SQLiteStore(str(tmp_path / "x.db"))
    embedder = BagOfWordsEmbedder()
    index_documents(store, embedder, UNTITLED, Settings())
    parsed.clear()
    unchanged = index_documents(store, embedder, UNTITLED, Settings())
    assert (unchanged.names, parsed) == (0, [])  # nothing written, nothing parsed
    extra = Document("doc-00099", "Timothy Hill is an American director.", "ids")
    report = index_documents(store, embedder, [*UNTITLED, extra], Settings())
    assert parsed == [extra.text] and report.paragraphs_read == 1  # the others' readings are stored
    store.close()


def test_chunks_of_one_document_about_different_things_link_to_each_other(tmp_path: Path, parsed) -> None:
    text = "\n\n".join(d.text for d in TINY_CORPUS[:3])  # film, its director, her neighbourhood
    store = SQLiteStore(str(tmp_path / "x.db"))
    report = index_documents(store, BagOfWordsEmbedder(), [Document("doc-1", text, "f")], Settings())
    assert report.chunks_written == 3 and report.links >= 2  # film → director → Greenwich Village
    with sqlite3.connect(tmp_path / "x.db") as db:
        about = db.execute("SELECT c.ord, n.surface FROM abouts a JOIN chunks c ON c.id = a.chunk_id "
                           "JOIN names n ON n.id = a.name_id WHERE n.surface = 'Adriana Trigiani'").fetchall()
    assert about == [(1, "Adriana Trigiani")]  # only the director's paragraph is about her
    store.close()


def test_the_graph_signature_follows_the_names_source() -> None:
    assert graph_signature(Settings(), ()) == graph_signature(Settings(names_from="auto"), ())
    assert graph_signature(Settings(names_from="titles"), ()) != graph_signature(Settings(), ())


def test_an_unknown_names_source_is_an_input_error(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "x.db"))
    with pytest.raises(InputError, match="auto, titles, text, both"):
        index_documents(store, BagOfWordsEmbedder(), TINY_CORPUS, Settings(names_from="headings"))
    store.close()


def test_eval_caches_each_names_source_apart(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOPGRAPH_CACHE", str(tmp_path / "cache"))
    assert default_store("d", "", Settings(names_from="text")) != default_store("d", "", Settings())


def test_run_eval_takes_the_names_source_from_the_settings(tmp_path: Path, parsed, monkeypatch) -> None:
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())
    records = [{"_id": "1", "question": "Where is the director of Big Stone Gap based?", "answer": "Greenwich Village",
                "type": "bridge", "supporting_facts": [["doc-00000", 0], ["doc-00001", 0]], "context": []}]
    data, corpus = tmp_path / "q.json", tmp_path / "c.json"
    data.write_text(json.dumps(records), encoding="utf-8")
    corpus.write_text(json.dumps([{"title": d.title, "text": d.text} for d in UNTITLED]), encoding="utf-8")
    result = run_eval(data, corpus, methods=["hybrid+names+links"], store=str(tmp_path / "e.db"))
    assert result["names_from"] == "auto" and result["index_seconds"]["titles_as_names"] == 0
    assert result["methods"]["hybrid+names+links"]["all"]["both_found"] == 1.0
    with pytest.raises(InputError, match=re.escape("names from 'headings'")):
        run_eval(data, corpus, store=str(tmp_path / "e.db"), settings=Settings(names_from="headings"))


def test_paragraphs_are_read_and_their_readings_committed_a_batch_of_chunks_at_a_time(
        tmp_path: Path, parsed: list[str], monkeypatch) -> None:
    """A big file's chunk texts stream through: each batch's readings are written before the next
    batch is taken from the iterator, and a paragraph repeated in a later batch is not read again."""
    store = SQLiteStore(str(tmp_path / "x.db"))
    saved: list[int] = []
    taken: list[int] = []
    save = store.save_readings
    monkeypatch.setattr(store, "save_readings", lambda readings, reader: (saved.append(len(taken)),
                                                                          save(readings, reader)))
    texts = [d.text for d in TINY_CORPUS] + [TINY_CORPUS[0].text]  # 8 chunks, the last one a repeat

    def stream():
        for text in texts:
            taken.append(1)
            yield text

    shown: list[tuple[int, int]] = []
    readings, read = naming.read_new_paragraphs(store, stream(), lambda *bar: shown.append(bar), batch=3)
    assert shown == [(3, 3), (6, 6), (7, 7)]  # one bar runs on across the batches, never back to 0
    assert saved == [3, 6, 8]  # committed after chunks 3, 6 and 8, before the next batch was taken
    assert read == len(TINY_CORPUS) == len(parsed) == len(readings)
    assert readings[aboutness.text_hash(TINY_CORPUS[0].text)].about == ("Big Stone Gap",)
    store.close()
