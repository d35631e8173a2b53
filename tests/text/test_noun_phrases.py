"""Noun phrases as a reader names things: determiners and pronouns dropped, possessives kept, and
no interjection, verb, quantity word or phrase cut across a dash."""

from __future__ import annotations

import json

import pytest

from hopgraph.text import noun_phrases
from hopgraph.text.nlp import MODEL_PACKAGE

pytest.importorskip(MODEL_PACKAGE)


def phrases(text: str) -> list[str]:
    [found] = noun_phrases.noun_phrases([text])
    return found


def test_determiners_and_pronouns_are_dropped_and_possessives_kept() -> None:
    found = phrases("The old miller carried his heavy sacks to Marley's mill, and the Cratchits' dinner waited "
                    "on the table.")
    assert [p for p in found if " " in p] == ["old miller", "heavy sacks", "Marley's mill", "Cratchits' dinner"]
    assert "the" not in " ".join(found).split() and "his" not in " ".join(found).split()


def test_the_head_and_the_possessors_inside_a_phrase_are_said_too() -> None:
    found = phrases("The Cratchits' Christmas dinner was eaten at Marley's old house.")
    assert found == ["Cratchits' Christmas dinner", "Christmas dinner", "Cratchits", "Marley's old house", "house",
                     "Marley"]


def test_leading_adverbs_and_stop_words_are_dropped() -> None:
    assert phrases("Even the ghost rattled its chains; all such things frightened the miller.") == [
        "ghost", "chains", "things", "miller"]


def test_interjections_and_exclamations_are_not_phrases() -> None:
    found = phrases("'Hallo!' cried the miller. 'Hey, you!' A merry Christmas, uncle! Hallo here!")
    assert found == ["miller"]  # spaCy tags "Hallo" a proper noun: standing alone, it is no phrase
    assert phrases("'Good afternoon!' said the miller. \"Happy New Year!\" cried the baker.") == ["miller", "baker"]
    assert phrases("'The dinner was good,' said the miller.") == ["dinner", "miller"]  # quoted, not exclaimed


def test_verbs_never_head_a_phrase() -> None:
    assert phrases("The clerk came in and went out; he came back, running.") == ["clerk"]


def test_a_quantity_word_gives_way_to_what_it_measures() -> None:
    assert phrases("There was a great piece of cold roast beef, and a kind of pudding.") == [
        "cold roast beef", "roast beef", "pudding"]


def test_a_phrase_never_runs_across_a_dash_or_a_page_number() -> None:
    found = phrases("He spoke of me;--in life, and of the 62 lanterns in the square.")
    assert all("--" not in p and ";" not in p for p in found) and "lanterns" in found


def test_cached_phrases_parse_only_the_texts_not_yet_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = {1: "The miller ground the corn.", 2: "The sailor mended the sails."}
    cached = {noun_phrases.text_hash(texts[1]): json.dumps(["cached miller"])}
    parsed: list[list[str]] = []
    real = noun_phrases.noun_phrases
    monkeypatch.setattr(noun_phrases, "noun_phrases", lambda batch: parsed.append(list(batch)) or real(batch))
    found, new = noun_phrases.cached_phrases(texts, cached)
    assert parsed == [[texts[2]]]  # the cached text is not parsed again
    assert found == {1: ["cached miller"], 2: ["sailor", "sails"]}
    assert new == {noun_phrases.text_hash(texts[2]): json.dumps(["sailor", "sails"])}
