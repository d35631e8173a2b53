"""BM25 keyword search: ranking, stemming, and queries that match nothing."""

from __future__ import annotations

import bm25s
import numpy as np
import pytest
import Stemmer
from testkit import TINY_CORPUS

from hopgraph.text.bm25 import KeywordIndex, keyword_terms

TEXTS = [doc.text for doc in TINY_CORPUS]
TITLES = [doc.title for doc in TINY_CORPUS]


@pytest.fixture(scope="module")
def index() -> KeywordIndex:
    return KeywordIndex(TEXTS)


@pytest.mark.parametrize("query, title", [
    ("clothing retailer San Francisco", "Gap Inc."),
    ("prehistoric tools", "Stone Age"),
    ("Which neighborhood is on the west side of Lower Manhattan?", "Greenwich Village"),
    ("Academy Award producer", "Donna Gigliotti"),
])
def test_text_containing_the_query_terms_ranks_first(index: KeywordIndex, query: str, title: str) -> None:
    scores = index.scores(query)
    assert scores.shape == (len(TEXTS),)
    best = int(np.argmax(scores))
    assert TITLES[best] == title
    assert scores[best] > np.sort(scores)[-2]  # strictly ahead of the runner-up


def test_texts_without_any_query_term_score_zero(index: KeywordIndex) -> None:
    scores = index.scores("clothing retailer")
    assert {TITLES[i] for i in np.flatnonzero(scores)} == {"Gap Inc."}


def test_rarer_term_weighs_more_than_a_common_one() -> None:
    keyword = KeywordIndex(["film about love", "film about war", "film about tools", "a film on stone tools"])
    scores = keyword.scores("film stone")
    assert int(np.argmax(scores)) == 3


@pytest.mark.parametrize("query, text", [
    ("directors", "The director of the film."),
    ("director", "Both directors attended."),
    ("Directing", "She directed the film."),
])
def test_query_and_text_words_match_through_their_stems(query: str, text: str) -> None:
    keyword = KeywordIndex([text, "A cat sat on the mat."])
    scores = keyword.scores(query)
    assert scores[0] > 0
    assert scores[1] == 0


def test_matching_ignores_case() -> None:
    keyword = KeywordIndex(["GREENWICH village", "Stone Age"])
    assert keyword.scores("greenwich Village")[0] > 0


@pytest.mark.parametrize("query", ["the of and is", "xylophonic zebracorn", "", "?!", "a b c"])
def test_query_without_index_terms_scores_all_zero(index: KeywordIndex, query: str) -> None:
    scores = index.scores(query)
    assert scores.shape == (len(TEXTS),)
    assert not scores.any()


def test_terms_drop_stopwords_and_unknown_words(index: KeywordIndex) -> None:
    assert index.terms("the directors of zebracorn") == index.terms("director")
    assert len(index.terms("director")) == 1


def test_empty_index_gives_zero_length_scores() -> None:
    keyword = KeywordIndex([])
    assert keyword.scores("director").shape == (0,)
    assert keyword.terms("director") == []


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # bm25s divides by an average length of 0
def test_index_of_stopword_only_texts_scores_all_zero() -> None:
    keyword = KeywordIndex(["To be or not to be", "As it is, and as it was"])
    assert keyword.scores("hamlet").tolist() == [0.0, 0.0]


TRICKY = ["Greenwich Village's best-selling author, born 1965 — in São Paulo!", "The of a and it", "",
          "Films, filming and filmed: FILM film_making x y 42 4.2", "naïve café résumés; l'été"]


@pytest.mark.parametrize("text", [*TEXTS, *TRICKY])
def test_keyword_terms_are_the_tokens_bm25s_indexes(text: str) -> None:
    """A store that ranks keywords itself indexes these: they must be bm25s's, term for term."""
    tokens = bm25s.tokenize([text], stopwords="en", stemmer=Stemmer.Stemmer("english"), show_progress=False)
    words = {i: term for term, i in tokens.vocab.items()}
    assert keyword_terms(text) == [words[i] for i in tokens.ids[0]]
