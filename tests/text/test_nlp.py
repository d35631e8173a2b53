"""Names from text: the aboutness rule, its aliases, the corpus resolution, and indexing with them."""

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
from hopgraph.records.documents import Document
from hopgraph.store import SQLiteStore
from hopgraph.text import nlp
from hopgraph.text.nlp import (
    LEAD,
    Concept,
    about_names,
    ascii_fold,
    clean_name,
    looks_like_name,
    person_forms,
    short_forms,
)


def lead(text: str, verb: str = " is ") -> list[Concept]:
    """The concepts spaCy would give for a defining first sentence: the span before the verb."""
    return [Concept(text[: text.index(verb) + 1], LEAD, 0)]


# --- clean_name and looks_like_name --------------------------------------------------------------

@pytest.mark.parametrize("span, name", [
    ("Big Stone Gap ", "Big Stone Gap"),
    ("Holly Audrey Williams (born March 12, 1981) ", "Holly Audrey Williams"),
    ("Kasba( English:\" The Town\") ", "Kasba"),
    ("\"Missing My Baby\" ", "Missing My Baby"),
    ("Myint Tayzar Phone  born July 2, 1978) ", "Myint Tayzar Phone"),
    ("Hebron Academy, founded in 1804, ", "Hebron Academy"),
    ("Michael Johnson, better known as Mikey Spice, ", "Michael Johnson"),
    ("\u200bPan Wenshi", "Pan Wenshi"),
    ("William Howard, 8th Earl of Carlisle( 23 February 1808) ", "William Howard, 8th Earl of Carlisle"),
])
def test_clean_name_keeps_the_name_of_a_subject_span(span: str, name: str) -> None:
    assert clean_name(span) == name


@pytest.mark.parametrize("name, ok", [
    ("Big Stone Gap", True), ("The Nip Drivers", True), ("2015 FA Women's Cup Final", True),
    ("He", False), ("The following", False), ("intimate and private photographs", False),
    ("politician. He", False), (" ".join(["Word"] * 17), False),
])
def test_looks_like_name(name: str, ok: bool) -> None:
    assert looks_like_name(name) is ok


# --- person_forms -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("Delmer Lawrence Daves", {"Delmer Daves", "Lawrence Daves", "Delmer L. Daves", "D. Daves", "D. L. Daves"}),
    ("Sir James Charles Mathew", {"James Mathew", "Sir James Charles Mathew"}),
    ("King Wallis Vidor", {"King Vidor", "Wallis Vidor"}),
    ('Roderick A. "Roddy" Maude-Roxby', {"Roddy Maude-Roxby", "Roderick Maude-Roxby"}),
    ("Alisa Peta Camplin OAM", {"Alisa Camplin", "Alisa Peta Camplin"}),
    ("Donald John Trump Jr.", {"Donald Trump", "Donald Trump Jr."}),
    ("Hermann George Bernard of Saxe-Weimar-Eisenach", {"Hermann of Saxe-Weimar-Eisenach"}),
    ("Ludwig van Beethoven", {"Ludwig van Beethoven", "L. van Beethoven"}),
])
def test_person_forms_are_the_ways_people_are_written(name: str, expected: set[str]) -> None:
    forms = person_forms(name)
    assert expected <= set(forms)
    assert all(len(form.split()) > 1 for form in forms)


def test_a_lead_that_is_no_persons_name_has_no_person_forms() -> None:
    assert person_forms("The Girl with the Hungry Eyes") == []


# --- about_names -----------------------------------------------------------------------------------

def test_the_subject_of_a_defining_first_sentence_is_the_name() -> None:
    text = "Big Stone Gap is a 2014 American drama film directed by Adriana Trigiani."
    assert about_names(text, lead(text)) == ["Big Stone Gap"]


def test_a_person_lead_also_gets_its_short_forms() -> None:
    text = "Holly Audrey Williams (born March 12, 1981) is an American singer-songwriter."
    names = about_names(text, [*lead(text), Concept("Audrey Williams", "PERSON", 6)])
    assert names[0] == "Holly Audrey Williams"
    assert "Holly Williams" in names


def test_life_dates_make_a_lead_a_person_without_the_entity_label() -> None:
    text = "Gene Curtis Harrington( September 17, 1926 – May 6, 2007) was an American director."
    assert "Curtis Harrington" in about_names(text, lead(text, " was "))


def test_a_stated_alias_is_kept_even_as_one_word_but_a_derived_one_word_alias_is_not() -> None:
    text = "Choi Jin-ri (born March 29, 1994), better known by her stage name Sulli, is a South Korean actress."
    assert about_names(text, lead(text)) == ["Choi Jin-ri", "C. Jin-ri", "Sulli"]
    text = "Albert, Duke of Schleswig-Holstein (26 February 1869 – 27 April 1931), was a German prince."
    assert "Albert" not in about_names(text, lead(text, " was "))


def test_the_and_or_and_comma_and_company_forms() -> None:
    text = "The Marvelous Night or The Night of Marvels is a 1940 French comedy film."
    assert {"The Marvelous Night", "Marvelous Night", "The Night of Marvels"} <= set(about_names(text, lead(text)))
    text = "Rip Off Press, Inc. is a mail order retailer."
    assert about_names(text, lead(text)) == ["Rip Off Press, Inc.", "Rip Off Press"]


def test_a_settlement_is_also_named_with_the_places_it_is_in() -> None:
    text = "Young is a town in the South West Slopes region of New South Wales, Australia."
    concepts = [*lead(text), Concept("New South Wales", "GPE", 51), Concept("Australia", "GPE", 68)]
    assert about_names(text, concepts) == ["Young", "Young, New South Wales", "Young, Australia"]


def test_diacritics_are_folded_into_a_second_form() -> None:
    assert ascii_fold("Roman Polański") == "Roman Polanski"
    text = "Roman Polański is a film director."
    assert about_names(text, lead(text)) == ["Roman Polański", "Roman Polanski"]


def test_without_a_parse_the_text_before_the_first_is_outside_parentheses_is_the_name() -> None:
    text = "Always (; lit. Only You) is a South Korean film directed by Song Il-gon."
    assert about_names(text, []) == ["Always"]


@pytest.mark.parametrize("text", ["He was the father of Obata Masamori.", "The film was released in 1961.",
                                  "A fish curve is an ellipse negative pedal curve."])
def test_a_paragraph_that_names_nothing_it_defines_gets_no_name(text: str) -> None:
    assert about_names(text, []) == []


def test_without_a_lead_the_entity_opening_the_text_is_the_name() -> None:
    text = "Metallica's albums, all of them, sold well."
    assert about_names(text, [Concept("Metallica", "ORG", 0), Concept("1990", "DATE", 30)]) == ["Metallica"]
    assert about_names("Sold well: Metallica.", [Concept("Metallica", "ORG", 11)]) == []


# --- short_forms ----------------------------------------------------------------------------------

def test_a_shortened_given_name_in_the_corpus_names_the_document() -> None:
    doc_names = {1: ["Timothy John Russert", "Timothy Russert"], 2: ["Andrew W. Sidaris"], 3: ["Big Stone Gap"]}
    texts = ["Tim Russert hosted it.", "Directed by Andy Sidaris.", "Christine Russert and Bob Gap were there."]
    names = short_forms(doc_names, texts)
    assert names[1] == ["Timothy John Russert", "Timothy Russert", "Tim Russert"]
    assert names[2] == ["Andrew W. Sidaris", "Andy Sidaris"]
    assert names[3] == ["Big Stone Gap"]


# --- indexing with extracted names (spaCy replaced by a stand-in) -------------------------------------

@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """nlp.concepts without spaCy: each text's lead is the span before its first " is "; returns
    the texts it was asked to parse."""
    calls: list[str] = []

    def fake_concepts(texts, nlp=None, batch_size=64, n_process=1, progress=None):
        calls.extend(texts)
        return [lead(t) if " is " in t else [] for t in texts]

    monkeypatch.setattr(nlp, "concepts", fake_concepts)
    return calls


def names_table(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT n.surface, n.kind, d.title FROM names n JOIN documents d ON d.id = n.doc_id "
                          "ORDER BY n.id").fetchall()


def test_indexing_with_extracted_names_stores_them_and_links_by_them(tmp_path: Path, parsed: list[str]) -> None:
    db = tmp_path / "x.db"
    store = SQLiteStore(str(db))
    report = index_documents(store, BagOfWordsEmbedder(), TINY_CORPUS, Settings(), names_from="extracted")
    names = names_table(db)
    assert ("Big Stone Gap", "extracted", "Big Stone Gap (film)") in names
    assert ("Adriana Trigiani", "extracted", "Adriana Trigiani") in names
    assert ("Big Stone Gap (film)", "title", "Big Stone Gap (film)") not in names
    assert {kind for _, kind, _ in names} == {"extracted"}
    assert report.links > 0 and "extract_names" in report.seconds
    assert len(parsed) == len(TINY_CORPUS)
    assert store.meta()["graph_signature"] == graph_signature(Settings(), (), "extracted")
    store.close()


def test_reindexing_parses_only_new_text_and_switching_sources_rebuilds(tmp_path: Path, parsed: list[str]) -> None:
    store = SQLiteStore(str(tmp_path / "x.db"))
    embedder = BagOfWordsEmbedder()
    index_documents(store, embedder, TINY_CORPUS, Settings(), names_from="extracted")
    parsed.clear()
    unchanged = index_documents(store, embedder, TINY_CORPUS, Settings(), names_from="extracted")
    assert (unchanged.names, parsed) == (0, [])  # nothing written, nothing parsed
    extra = Document("Tim Hill (director)", "Timothy Hill is an American director.", "tiny")
    index_documents(store, embedder, [*TINY_CORPUS, extra], Settings(), names_from="extracted")
    assert parsed == [extra.text]  # the stored names of the others are reused
    titled = index_documents(store, embedder, [*TINY_CORPUS, extra], Settings())
    assert titled.names and parsed == [extra.text]
    assert {kind for _, kind, _ in names_table(tmp_path / "x.db")} == {"title"}
    store.close()


def test_the_graph_signature_follows_the_names_source() -> None:
    assert graph_signature(Settings(), ()) == graph_signature(Settings(), (), "titles")
    assert graph_signature(Settings(), (), "extracted") != graph_signature(Settings(), ())


def test_an_unknown_names_source_is_an_input_error(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "x.db"))
    with pytest.raises(InputError, match="titles, extracted"):
        index_documents(store, BagOfWordsEmbedder(), TINY_CORPUS, Settings(), names_from="headings")
    store.close()


def test_eval_caches_an_extracted_index_apart_from_the_titled_one(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOPGRAPH_CACHE", str(tmp_path / "cache"))
    assert default_store("d", "", Settings(), "extracted") != default_store("d", "", Settings())
    assert default_store("d", "", Settings(), "titles") == default_store("d", "", Settings())


def test_run_eval_with_extracted_names(tmp_path: Path, parsed: list[str], monkeypatch) -> None:
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())
    records = [{"_id": "1", "question": "Where is the director of Big Stone Gap based?", "answer": "Greenwich Village",
                "type": "bridge", "supporting_facts": [["Big Stone Gap (film)", 0], ["Adriana Trigiani", 0]],
                "context": [[d.title, [d.text]] for d in TINY_CORPUS]}]
    data = tmp_path / "q.json"
    data.write_text(json.dumps(records), encoding="utf-8")
    result = run_eval(data, methods=["hybrid+names+links"], store=str(tmp_path / "e.db"), names_from="extracted")
    assert result["names_from"] == "extracted"
    assert result["methods"]["hybrid+names+links"]["all"]["both_found"] == 1.0
    with pytest.raises(InputError, match=re.escape("--names-from 'headings'")):
        run_eval(data, store=str(tmp_path / "e.db"), names_from="headings")


# --- with spaCy's model, when it is installed ----------------------------------------------------------

def test_concepts_with_the_spacy_model() -> None:
    pytest.importorskip(nlp.MODEL_PACKAGE)
    text = ("Holly Audrey Williams (born March 12, 1981) is an American singer-songwriter. "
            "She is the granddaughter of Hank Williams.")
    [found] = nlp.concepts([text])
    assert all(text[c.start : c.start + len(c.surface)] == c.surface for c in found)
    labels = {c.label for c in found}
    assert {LEAD, "DATE", nlp.NOUN_CHUNK} <= labels
    assert any(c.label == "PERSON" and c.surface == "Hank Williams" and c.sent == 1 for c in found)
    names = about_names(text, found)
    assert names[0] == "Holly Audrey Williams" and "Holly Williams" in names
