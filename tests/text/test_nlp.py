"""Names from text: the aboutness rule, its aliases, the corpus resolution, and indexing with them."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import pytest

from hopgraph import extras
from hopgraph.extras import MissingExtra
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
    text = "Ghost (; lit. Only You) is a South Korean film directed by Song Il-gon."
    assert about_names(text, []) == ["Ghost"]
    # a lone stop word is too often dialogue ("What is it?") to be a name without a parse
    assert about_names("Always (; lit. Only You) is a South Korean film.", []) == []


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


def test_a_lead_misparsed_into_a_definition_falls_back_to_the_name_before_the_verb() -> None:
    """spaCy can make "Toad Hall is a residential hall in …, it" the subject of "was opened": a
    lower-case copula and article inside a lead make it a definition, not a name."""
    text = "Toad Hall is a residential hall in Australian National University, it was opened in 1974."
    broken = [Concept("Toad Hall is a residential hall in Australian National University, it ", LEAD, 0)]
    assert about_names(text, broken) == ["Toad Hall"]


# --- without the `nlp` extra ---------------------------------------------------------------------

@pytest.fixture
def without_spacy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As if spaCy and its model were not installed (a None in sys.modules fails every import)."""
    for module in ("spacy", nlp.MODEL_PACKAGE):
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setattr(extras, "_noted", set())
    nlp.load_model.cache_clear()  # a model loaded by an earlier test must not answer
    yield
    nlp.load_model.cache_clear()


def test_without_spacy_parsing_names_the_nlp_extra(without_spacy: None) -> None:
    assert not nlp.parser_available()
    with pytest.raises(MissingExtra, match=r"needs spaCy and its English model.*pip install 'hopgraph\[nlp\]'"):
        nlp.load_model()


def test_without_spacy_names_come_from_the_surface_rule_said_once(without_spacy: None, caplog) -> None:
    texts = ["Ed Wood (born 1924) was an American filmmaker.", "He made films on a small budget."]
    with caplog.at_level(logging.WARNING, logger="hopgraph"):
        found = nlp.concepts(texts)
        nlp.concepts(texts)
    assert found == [[], []]
    assert about_names(texts[0], found[0])[0] == "Ed Wood"
    assert about_names(texts[1], found[1]) == []
    assert len(caplog.records) == 1 and "pip install 'hopgraph[nlp]'" in caplog.records[0].getMessage()


def test_without_spacy_the_concept_graph_names_the_nlp_extra(without_spacy: None) -> None:
    from hopgraph.kg.extractors.concepts import concept_facts

    with pytest.raises(MissingExtra, match=r"hopgraph\[nlp\]"):
        concept_facts([1], ["Ed Wood was an American filmmaker."])
