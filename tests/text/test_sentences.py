"""The one sentence splitter's prose filter: what an answer may quote is a sentence, never a heading."""

from __future__ import annotations

import pytest

from hopgraph.text.sentences import is_heading_line, prose_sentences, split_sentences

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
])
def test_what_counts_as_a_heading_line(line: str, heading: bool) -> None:
    assert is_heading_line(line) is heading
