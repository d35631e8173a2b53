import pytest

from hopgraph.query.short import short_answer
from hopgraph.records.retrieval import Hit, Via
from hopgraph.text.nlp import load_model, parser_available

pytestmark = pytest.mark.skipif(not parser_available(), reason="spaCy's model is a core dependency")

FILM = ("Big Stone Gap is a 2014 American drama romantic comedy film written and directed by Adriana Trigiani "
        "and produced by Donna Gigliotti for Altar Identity Studios. The story is set in the actual Virginia "
        "town of Big Stone Gap circa 1970s.")
AUTHOR = ("Adriana Trigiani is an Italian American best-selling author of sixteen books, television writer, "
          "film director, and entrepreneur based in Greenwich Village, New York City.")


def hits(*texts: tuple[str, str]) -> list[Hit]:
    return [Hit(i, i, title, text, 0.0, "hybrid", Via(0, "x", title) if i else None)
            for i, (title, text) in enumerate(texts)]


def test_the_bridge_answer_comes_from_the_second_passage_not_the_question_s_own():
    found = short_answer("The director of Big Stone Gap is based in what New York city?",
                         hits(("Big Stone Gap (film)", FILM), ("Adriana Trigiani", AUTHOR)), load_model())
    assert found is not None and "Greenwich Village" in found.text
    assert found.chunk_id == 1 and found.sentence.startswith("Adriana Trigiani")


def test_a_wanted_type_missing_from_the_evidence_gives_no_answer():
    found = short_answer("In what year was the studio founded?", hits(("Trigiani", AUTHOR)), load_model())
    assert found is None


def test_yes_no_and_no_hits():
    assert short_answer("Are both Cypress and Ajuga genera?", hits(("a", FILM)), load_model()).text == "yes"
    assert short_answer("Who directed it?", [], load_model()) is None
