"""Names: disambiguation stripping, mention finding, filter reasons, gazetteer reading and attaching."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopgraph.errors import InputError
from hopgraph.linkgraph.names import (
    MentionFinder,
    filter_reason,
    names_for_documents,
    read_gazetteer,
    strip_disambiguation,
)
from hopgraph.records.names import GazetteerEntry


def found(finder: MentionFinder, text: str) -> list[str]:
    return [finder.surfaces[i] for i in finder.find(text)]


# --- strip_disambiguation ----------------------------------------------------------------------

@pytest.mark.parametrize("title, name", [
    ("Big Stone Gap (film)", "Big Stone Gap"),
    ("Big Stone Gap (1989 film) ", "Big Stone Gap"),
    ("Adriana Trigiani", "Adriana Trigiani"),
    ("(film)", "(film)"),
    ("Gap (clothing) Inc.", "Gap (clothing) Inc."),  # only a trailing parenthesis is a disambiguation
])
def test_strip_disambiguation(title: str, name: str) -> None:
    assert strip_disambiguation(title) == name


# --- MentionFinder -----------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["Gaps are common.", "The SGap brand.", "GapInc", "Gap2"])
def test_name_inside_a_longer_word_is_not_a_mention(text: str) -> None:
    assert found(MentionFinder(["Gap"]), text) == []


@pytest.mark.parametrize("text", ["Gap", "Gap's stores", "at Gap.", "(Gap)", "Gap, Inc.", "“Gap”", "Old-Gap"])
def test_name_bounded_by_non_letters_is_a_mention(text: str) -> None:
    assert found(MentionFinder(["Gap"]), text) == ["Gap"]


def test_longest_match_wins_and_overlapping_shorter_names_are_not_reported() -> None:
    finder = MentionFinder(["Stone Gap", "Big Stone", "Big Stone Gap", "Gap"])
    assert found(finder, "Big Stone Gap is a film.") == ["Big Stone Gap"]


def test_leftmost_match_wins_over_a_later_overlapping_one() -> None:
    finder = MentionFinder(["Big Stone", "Stone Gap"])
    assert found(finder, "Big Stone Gap") == ["Big Stone"]


def test_each_name_is_reported_once_in_text_order() -> None:
    finder = MentionFinder(["Adriana Trigiani", "Donna Gigliotti", "Gap"])
    text = "Donna Gigliotti met Adriana Trigiani; later Donna Gigliotti went to Gap and Adriana Trigiani too."
    assert found(finder, text) == ["Donna Gigliotti", "Adriana Trigiani", "Gap"]


def test_mentions_are_case_sensitive() -> None:
    assert found(MentionFinder(["Gap"]), "a gap in the fence") == []


def test_duplicate_surfaces_are_kept_once() -> None:
    assert MentionFinder(["Gap", "Gap", "Stone"]).surfaces == ["Gap", "Stone"]


def test_finder_without_names_finds_nothing() -> None:
    assert MentionFinder([]).find("Big Stone Gap") == []


# --- filter_reason -----------------------------------------------------------------------------

def test_name_shorter_than_min_chars_is_short() -> None:
    assert filter_reason("Li", 1, 100, min_chars=3, max_doc_share=0.01) == "short"
    assert filter_reason("Liu", 1, 100, min_chars=3, max_doc_share=0.01) == ""


@pytest.mark.parametrize("surface", ["1989", "1989–1990", "3.14", "12/05/2001", "1,000"])
def test_number_like_name_is_numeric(surface: str) -> None:
    assert filter_reason(surface, 1, 100, min_chars=3, max_doc_share=0.01) == "numeric"


def test_name_with_digits_and_letters_is_not_numeric() -> None:
    assert filter_reason("1989 (album)", 1, 100, min_chars=3, max_doc_share=0.01) == ""


def test_common_threshold_is_never_below_five_documents() -> None:
    # 1% of 100 documents is 1, but a name needs more than 5 mentioning documents to be a hub.
    assert filter_reason("Paris", 5, 100, min_chars=3, max_doc_share=0.01) == ""
    assert filter_reason("Paris", 6, 100, min_chars=3, max_doc_share=0.01) == "common"


def test_common_threshold_is_the_document_share_in_a_large_corpus() -> None:
    assert filter_reason("Paris", 100, 10_000, min_chars=3, max_doc_share=0.01) == ""
    assert filter_reason("Paris", 101, 10_000, min_chars=3, max_doc_share=0.01) == "common"


# --- read_gazetteer ----------------------------------------------------------------------------

def write_csv(tmp_path: Path, text: str, name: str = "names.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_gazetteer_aliases_split_on_pipe_and_semicolon(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "name,aliases,type,id\n"
                               "Adriana Trigiani, Trigiani | A. Trigiani;Adri ;,person,Q1\n"
                               "Gap Inc.,,company,\n")
    entries = read_gazetteer(path)
    assert entries == [GazetteerEntry("Adriana Trigiani", ("Trigiani", "A. Trigiani", "Adri"), "person", "Q1"),
                       GazetteerEntry("Gap Inc.", (), "company", "")]


def test_gazetteer_with_only_a_name_column_is_accepted(tmp_path: Path) -> None:
    entries = read_gazetteer(write_csv(tmp_path, "name\nStone Age\n"))
    assert entries == [GazetteerEntry("Stone Age", (), "", "")]


def test_gazetteer_without_name_column_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "title,aliases\nStone Age,Stone\n")
    with pytest.raises(InputError) as caught:
        read_gazetteer(path)
    assert str(path) in str(caught.value) and "name" in str(caught.value)


def test_gazetteer_row_with_empty_name_is_an_input_error_naming_its_line(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "name,aliases\nStone Age,Stone\n  ,orphan alias\n")
    with pytest.raises(InputError) as caught:
        read_gazetteer(path)
    assert str(path) in str(caught.value) and "line 3" in str(caught.value)


def test_missing_gazetteer_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.csv"):
        read_gazetteer(tmp_path / "nope.csv")


def test_gazetteer_with_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffname,aliases\nStone Age,Stone\n".encode())
    assert read_gazetteer(path) == [GazetteerEntry("Stone Age", ("Stone",), "", "")]


# --- names_for_documents -----------------------------------------------------------------------

TITLES = {1: "Big Stone Gap (film)", 2: "Adriana Trigiani", 3: "Gap Inc."}


def test_each_document_is_named_by_its_stripped_title() -> None:
    names = {(n.surface, n.doc_id) for n in names_for_documents(TITLES) if n.kind == "title"}
    assert {("Big Stone Gap", 1), ("Adriana Trigiani", 2), ("Gap Inc.", 3)} <= names


def test_a_title_with_a_disambiguation_is_also_a_name_in_full() -> None:
    names = [(n.surface, n.doc_id) for n in names_for_documents(TITLES) if n.kind == "title"]
    assert ("Big Stone Gap (film)", 1) in names
    assert len(names) == len(TITLES) + 1  # titles without a suffix are named once


def test_gazetteer_entry_attaches_to_the_document_whose_title_is_its_name() -> None:
    entry = GazetteerEntry("Adriana Trigiani", ("Trigiani",), "person", "")
    gazetteer_names = [n for n in names_for_documents(TITLES, [entry]) if n.kind == "gazetteer"]
    assert [(n.surface, n.doc_id) for n in gazetteer_names] == [("Adriana Trigiani", 2), ("Trigiani", 2)]


def test_gazetteer_entry_attaches_through_the_stripped_title() -> None:
    entry = GazetteerEntry("Big Stone Gap", ("BSG",), "film", "")
    gazetteer_names = [n for n in names_for_documents(TITLES, [entry]) if n.kind == "gazetteer"]
    assert {n.doc_id for n in gazetteer_names} == {1}


def test_gazetteer_entry_attaches_through_its_id_when_the_name_differs() -> None:
    entry = GazetteerEntry("The Gap", ("Gap",), "company", "Gap Inc.")
    gazetteer_names = [n for n in names_for_documents(TITLES, [entry]) if n.kind == "gazetteer"]
    assert [(n.surface, n.doc_id) for n in gazetteer_names] == [("The Gap", 3), ("Gap", 3)]


def test_gazetteer_entry_naming_no_document_has_no_doc_id() -> None:
    entry = GazetteerEntry("Donna Gigliotti", ("Gigliotti",), "person", "Q42")
    gazetteer_names = [n for n in names_for_documents(TITLES, [entry]) if n.kind == "gazetteer"]
    assert [(n.surface, n.doc_id) for n in gazetteer_names] == [("Donna Gigliotti", None), ("Gigliotti", None)]


def test_gazetteer_entry_attaches_to_document_id_zero() -> None:
    entry = GazetteerEntry("The Stone Age", ("Stone",), "period", "Stone Age")  # attached through its id
    gazetteer_names = [n for n in names_for_documents({0: "Stone Age"}, [entry]) if n.kind == "gazetteer"]
    assert {n.doc_id for n in gazetteer_names} == {0}


def test_names_from_text_replace_the_titles_and_are_of_kind_text() -> None:
    names = names_for_documents(TITLES, doc_names={1: ["Big Stone Gap", "Big Stone Gap"], 2: ["Adriana Trigiani"]})
    assert [(n.surface, n.doc_id, n.kind) for n in names] == [("Big Stone Gap", 1, "text"),
                                                              ("Adriana Trigiani", 2, "text")]


def test_gazetteer_entry_attaches_through_an_extracted_name() -> None:
    entry = GazetteerEntry("Trigiani", ("A. Trigiani",), "person", "Adriana Trigiani")
    names = names_for_documents({7: "doc-7.txt"}, [entry], doc_names={7: ["Adriana Trigiani"]})
    assert {n.doc_id for n in names if n.kind == "gazetteer"} == {7}


def test_casefolding_finder_matches_names_typed_in_another_case() -> None:
    finder = MentionFinder(["Big Stone Gap", "Adriana Trigiani"], casefold=True)
    assert found(finder, "who directed BIG STONE GAP? was it adriana trigiani") == ["big stone gap",
                                                                                   "adriana trigiani"]
    assert found(finder, "big stone gaps") == []  # word boundaries still apply


def test_an_empty_or_blank_title_names_nothing_and_breaks_nothing() -> None:
    """A title of white space alone ("\\u000b", found by the API fuzz) strips to no name: the finder
    holds no empty key, and such a title is named by no text."""
    from hopgraph.linkgraph.links import title_is_named_in

    finder = MentionFinder(["", "Big Stone Gap"])
    assert finder.surfaces == ["Big Stone Gap"] and finder.find("Big Stone Gap opened.") == [0]
    assert MentionFinder([""]).find("anything") == []
    assert not title_is_named_in("\u000b", "\u00ae and more")
