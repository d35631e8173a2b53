import pytest
from hit_kit import hit

from hopgraph.query.short import short_answer_of
from hopgraph.query.short.named import named_hits
from hopgraph.text.nlp import parser_available


def test_a_title_the_text_never_says_gives_way_to_the_name_the_lead_defines():
    hits = named_hits("Who was born first?", [
        hit(1, "doc-00722", "Lowell J. Sherman (October 11, 1885 – December 28, 1934) was an American actor."),
        hit(2, "Jonathan Kaplan", "Jonathan Kaplan (born November 25, 1947) is an American film director."),
        hit(3, "notes.txt", "The company was founded in 1990 and makes brake pads."),  # no name: kept
    ])
    assert [h.title for h in hits] == ["Lowell J. Sherman", "Jonathan Kaplan", "notes.txt"]
    assert hits[0].chunk_id == 1 and hits[0].text.startswith("Lowell J. Sherman")  # only the name changes


def test_a_title_whose_words_the_text_says_is_kept_even_when_the_lead_names_otherwise():
    lead = 'María Dolores "Mary" Tarrero-Serrano de Prio (1924 – 2010) was the First Lady of Cuba.'
    assert named_hits("Who overthrew her?", [hit(1, "Mary Tarrero-Serrano", lead)])[0].title == "Mary Tarrero-Serrano"
    # "doc" inside "documentary" is no mention of the title "doc-00017"
    boxing = hit(2, "doc-00017", "Kids Return is a documentary film about boxing.")
    assert named_hits("What is it about?", [boxing])[0].title == "Kids Return"


@pytest.mark.skipif(not parser_available(), reason="needs the nlp extra")
def test_an_untitled_choice_finds_each_option_by_its_lead_name():
    hits = [hit(1, "doc-00532", "Jonathan Kaplan (born November 25, 1947) is an American film director."),
            hit(2, "doc-01542", "Lowell J. Sherman (October 11, 1885 – December 28, 1934) was an American actor.")]
    answer = short_answer_of("Who was born first, Lowell Sherman or Jonathan Kaplan?", hits)
    assert answer is not None and (answer.text, answer.chunk_id) == ("Lowell Sherman", 2)


def test_of_the_names_a_lead_defines_the_one_the_question_writes_wins():
    text = ("Sidney Eddie Mosesian (born July 14, 1939), better known by his stage name Sid Haig, is an American "
            "actor.")
    assert named_hits("Who is the oldest, Sid Haig or Vic Darchinyan?", [hit(1, "doc-7", text)])[0].title == "Sid Haig"
    assert named_hits("Who played Captain Spaulding?", [hit(1, "doc-7", text)])[0].title == "Sidney Eddie Mosesian"
