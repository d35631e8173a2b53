from hit_kit import hits

from hopgraph.query.short.described import DESCRIBED, described_answer
from hopgraph.records.retrieval import Hit

BAND = ("Mercyful Fate is a Danish heavy metal band from Copenhagen, formed in 1981 by vocalist King "
        "Diamond. They released several albums.")
ALBUM = "Return of the Vampire is a compilation album of rare demo tracks by Mercyful Fate."
OTHER_BAND = "Volbeat are a Danish rock band formed in 2001."
QUESTION = "Which Danish heavy metal band from Copenhagen released a compilation album of rare demo tracks?"


def test_the_subject_of_the_opening_that_says_the_description_is_the_answer():
    found = described_answer(QUESTION, hits(("Return of the Vampire", ALBUM), ("Volbeat", OTHER_BAND),
                                            ("Mercyful Fate", BAND)))
    assert found is not None and (found.text, found.kind, found.chunk_id) == ("Mercyful Fate", DESCRIBED, 2)
    assert found.sentence.startswith("Mercyful Fate is a Danish heavy metal band")


def test_an_opening_that_calls_its_subject_another_kind_or_shares_too_little_is_not_it():
    assert described_answer("Which Danish heavy metal singer from Copenhagen released an album?",
                            hits(("Mercyful Fate", BAND))) is None  # a band, not a singer
    assert described_answer("Which band released the album?", hits(("Mercyful Fate", BAND))) is None
    assert described_answer("Mercyful Fate is which Danish band?", hits(("Mercyful Fate", BAND))) is None


def test_several_things_that_fit_are_told_apart_by_the_passage_that_mentions_one():
    lesotho = "Lesotho is a landlocked country located in Southern Africa, surrounded by South Africa."
    botswana = "Botswana is a landlocked country located in Southern Africa, north of South Africa."
    artist = "Ayesha, born 8 July 1981 in Botswana, is a Swedish performance artist."
    question = "What landlocked country located in Southern Africa is the birth place of the Swedish artist Ayesha?"
    both = hits(("Geography of Lesotho", lesotho), ("Geography of Botswana", botswana))
    assert described_answer(question, both) is None
    found = described_answer(question, [*both, Hit(2, 2, "Ayesha", artist, 0.0, "hybrid", None)])
    assert found is not None and found.text == "Botswana"
