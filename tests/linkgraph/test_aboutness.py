"""A paragraph's names are read from its head: only the first sentences go through the model."""

from __future__ import annotations

import pytest

from hopgraph.linkgraph import aboutness
from hopgraph.text import nlp
from hopgraph.text.nlp import LEAD, Concept

# Paragraphs of the shapes the name reader meets: a defining lead with the body after it, a person
# with life dates, a settlement, an entity opening the text, a heading, dialogue, no name at all.
PARAGRAPHS = [
    "Holly Audrey Williams (born March 12, 1981) is an American singer-songwriter. She is the granddaughter "
    "of Hank Williams. Her debut album was released in 2004 by Universal South Records. She toured with "
    "Willie Nelson and Loretta Lynn. In 2009 she married Chris Coleman. She lives in Nashville, Tennessee.",
    "Young is a town in the Hilltops Region of New South Wales, Australia. It was named after Sir John Young, "
    "a governor of the colony. The town grew after gold was found at Lambing Flat in 1860. Today it is known "
    "for its cherries. The Burley Griffin Way passes through the town.",
    "Big Stone Gap is a 2014 American drama romantic comedy film written and directed by Adriana Trigiani. "
    "It was produced by Donna Gigliotti. The film stars Ashley Judd and Patrick Wilson. It was shot in "
    "Virginia over six weeks. The Weinstein Company released it in October 2015.",
    "# The Darkon Wargaming Club\n\nThe Darkon Wargaming Club is a non-profit battle gaming club in the "
    "United States. Its members fight with foam weapons. The club was founded in 1985 by Richard Tucholka. "
    "It holds events in Maryland and Virginia. A documentary about it won an award at South by Southwest.",
    "Microsoft announced a new version of Windows on Tuesday. Satya Nadella said the release would come in "
    "the autumn. Analysts at Goldman Sachs expect strong sales. The company's shares rose three percent. "
    "Apple did not comment.",
    "\"Mind! I don't mean to say that I know, of my own knowledge, what there is particularly dead about a "
    "door-nail.\" Scrooge knew he was dead. Of course he did. How could it be otherwise? Scrooge and he "
    "were partners for I don't know how many years.",
    "The tornado outbreak of January 21–23, 2017 was a prolific and deadly winter tornado outbreak that "
    "occurred across the Southeast United States. Lasting just under two days, the outbreak produced 81 "
    "tornadoes. It was the largest outbreak on record in Georgia. Twenty people were killed.",
    "Timothy John Russert (May 7, 1950 – June 13, 2008) was an American television journalist and lawyer. "
    "He hosted Meet the Press for 16 years. Tim Russert was born in Buffalo, New York. He studied at John "
    "Carroll University. He died of a heart attack in Washington, D.C.",
]


def test_the_head_is_the_first_sentences_of_the_paragraph_as_written() -> None:
    text = "Ann Lee is a painter. She lives in Leeds. Dr. Roe met her. They talk. Then they part."
    assert aboutness.head(text) == "Ann Lee is a painter. She lives in Leeds. Dr. Roe met her."
    assert aboutness.head("One sentence only") == "One sentence only"


def test_only_the_head_of_a_paragraph_goes_to_the_model(monkeypatch) -> None:
    asked: list[str] = []

    def fake_concepts(texts, nlp=None, batch_size=64, n_process=1, progress=None):
        asked.extend(texts)
        return [[Concept(t[: t.index(" is ") + 1], LEAD, 0)] for t in texts]

    monkeypatch.setattr(nlp, "concepts", fake_concepts)
    text = PARAGRAPHS[2]
    readings = aboutness.read_paragraphs({"h": text}, {})
    assert asked == [aboutness.head(text)] and asked[0].endswith("Patrick Wilson.") and len(asked[0]) < len(text)
    assert readings["h"].about[0] == "Big Stone Gap"


def test_the_head_gives_the_names_the_whole_paragraph_gives() -> None:
    """Parsed by the real model: the names read from each paragraph's head are the names read from
    the whole paragraph (they all come from its first sentence)."""
    pytest.importorskip(nlp.MODEL_PACKAGE)
    whole = [aboutness.read_paragraph(p, found).about for p, found in zip(PARAGRAPHS, nlp.concepts(PARAGRAPHS),
                                                                           strict=True)]
    readings = aboutness.read_paragraphs({str(i): p for i, p in enumerate(PARAGRAPHS)}, {})
    from_head = [readings[str(i)].about for i in range(len(PARAGRAPHS))]
    assert from_head == whole
    # The fixture does name things (the check is not vacuous), and the dialogue names nothing.
    assert [whole[i][0] for i in (0, 1, 2, 4, 7)] == ["Holly Audrey Williams", "Young", "Big Stone Gap",
                                                       "Microsoft", "Timothy John Russert"]
    assert "Young, Australia" in whole[1]  # the settlement's places come from its first sentence too
    assert whole[5] == ()
