"""The one sentence splitter's filters: what an answer may quote is a stated sentence, never a heading
or a question."""

from __future__ import annotations

import pytest

from hopgraph.text.sentences import is_heading_line, is_question, prose_sentences, split_sentences, stated_sentences

PROFILE = ("# Plant Profile: Anvaya Foundry, Hosur\n\n"
           "Anvaya Foundry operates a single foundry in Hosur. It pours 2,400 tonnes a month.\n\n"
           "NOTICE TO STAKEHOLDERS\n\n"
           "The plant runs three shifts")


def test_prose_sentences_leave_out_markdown_and_capitalised_headings_only() -> None:
    assert split_sentences(PROFILE)[0] == "# Plant Profile: Anvaya Foundry, Hosur"  # the splitter keeps it
    assert prose_sentences(PROFILE) == ["Anvaya Foundry operates a single foundry in Hosur.",
                                        "It pours 2,400 tonnes a month.",
                                        "The plant runs three shifts"]  # no closing period, still prose


def test_a_title_case_line_of_its_own_is_a_heading_but_the_same_words_in_running_text_are_not() -> None:
    # A Word or PDF heading arrives as a plain line: its style is gone.
    word = "Plant Profile: Anvaya Foundry, Hosur\n\nThe Last of the Spirits\n\nAnvaya Foundry pours 2,400 tonnes."
    assert prose_sentences(word) == ["Anvaya Foundry pours 2,400 tonnes."]
    running = "Big Stone Gap is a film. Directed By Adriana Trigiani"  # the end of a paragraph, not a line
    assert prose_sentences(running) == split_sentences(running)
    assert prose_sentences("Tessaro Brakes\nbuys its discs from Ravik Foundry.") == [
        "Tessaro Brakes buys its discs from Ravik Foundry."]  # a hard-wrapped sentence


@pytest.mark.parametrize(("line", "heading"), [
    ("# Results", True),
    ("### 2. Suppliers and their plants", True),
    ("NOTICE TO STAKEHOLDERS", True),
    ("Acme Corp", False),  # a short line in mixed case may be a sentence without its period
    ("THE BOARD HAS DECIDED TO SELL THE FOUNDRY TO TRISANDHYA HOLDINGS FOR CASH", False),  # shouting prose
    ("WARNING.", False),  # closing punctuation: a sentence
    ("# Heading\nwith a second line", False),  # a block of lines is no heading line
    ("#1 priority is the Hosur plant", False),  # no space after the hash: not Markdown's heading
    ("STAVE ONE--MARLEY'S GHOST     3\nSTAVE TWO--THE FIRST OF THE THREE SPIRITS    37", False),  # not its own line
])
def test_what_counts_as_a_heading_line(line: str, heading: bool) -> None:
    assert is_heading_line(line) is heading


def test_a_block_of_lines_in_capitals_of_its_own_is_a_table_of_contents_not_prose() -> None:
    book = ("CONTENTS\n\n  STAVE ONE--MARLEY'S GHOST     3\n  STAVE TWO--THE FIRST OF THE THREE SPIRITS    37\n\n"
            "Marley was dead: to begin with.\n\nTHE TOWN WAS COLD\nand dark that night.")
    assert prose_sentences(book) == ["Marley was dead: to begin with.", "THE TOWN WAS COLD and dark that night."]


def test_a_bracketed_marker_alone_is_no_sentence_but_a_sentence_with_one_is() -> None:
    text = "[Illustration]\n\nThe first of the three spirits came.\n\n[Image] He waited."
    assert prose_sentences(text) == ["The first of the three spirits came.", "[Image] He waited."]


@pytest.mark.parametrize(("sentence", "question"), [
    ("But what did Scrooge care?", True),
    ("'What has ever got your precious father, then?' said Mrs. Cratchit.", True),  # a quoted question
    ("\"Are you the Spirit, sir?\" asked Scrooge, in a low voice.", True),
    ('The film "Who Framed Roger Rabbit?" was released in 1988.', False),  # a title with a question mark
    ("Scrooge asked where the Spirit had gone.", False),
])
def test_what_counts_as_a_question(sentence: str, question: bool) -> None:
    assert is_question(sentence) is question


def test_stated_sentences_leave_out_questions_and_headings() -> None:
    text = "# Stave Three\n\n'Who is Tiny Tim's father?' said Belle. Bob Cratchit is Tiny Tim's father. Is he?"
    assert stated_sentences(text) == ["Bob Cratchit is Tiny Tim's father."]


def test_each_row_of_a_table_is_a_sentence_of_its_own() -> None:
    notes = "Item | Figure\nMoulding line | 1\nInduction furnaces | 2\n\nThey melt in two\ninduction furnaces."
    assert split_sentences(notes) == ["Item | Figure", "Moulding line | 1", "Induction furnaces | 2",
                                      "They melt in two induction furnaces."]  # prose lines still join
