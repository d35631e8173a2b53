import pytest
from hit_kit import hits

from hopgraph.query.short.common import COMMON, shared_answer
from hopgraph.text.nlp import load_model, parser_available

pytestmark = pytest.mark.skipif(not parser_available(), reason="spaCy's model is a core dependency")

GAME = "Hot Pixel is a puzzle video game for the Sony PlayStation Portable released in 2007 by Atari."
CONSOLE = ("The PlayStation Portable is a handheld game console developed by Sony. It competed with the "
           "Nintendo DS, as part of the seventh generation of video games consoles.")
PRODUCER = "Ralph Smart (1908 – 2001) was a television producer, director, and writer, born in England."
ANIMATOR = "Trey Parker (born 1969) is an American actor, animator, writer, director, producer, and singer."
OTHER = "Atari is a company that makes video games and consoles."


def test_a_noun_pair_both_named_passages_use_is_what_they_have_in_common():
    found = shared_answer("What type of media does Hot Pixel and PlayStation Portable have in common?",
                          hits(("Atari", OTHER), ("Hot Pixel", GAME), ("PlayStation Portable", CONSOLE)), load_model())
    assert found is not None and (found.text, found.kind, found.chunk_id) == ("video game", COMMON, 1)
    assert found.sentence == GAME


def test_a_plural_kind_lists_every_shared_noun_in_the_first_passage_s_order():
    found = shared_answer("Which occupations did Ralph Smart and Trey Parker have in common?",
                          hits(("Ralph Smart", PRODUCER), ("Trey Parker (writer)", ANIMATOR)), load_model())
    assert found is not None and found.text == "producer, director, and writer"


def test_a_kind_both_have_asked_before_both_is_a_shared_noun_too():
    found = shared_answer("What type of occupation do Ralph Smart and Trey Parker both have?",
                          hits(("Ralph Smart", PRODUCER), ("Trey Parker (writer)", ANIMATOR)), load_model())
    assert found is not None and found.text in ("producer", "director", "writer")


def test_without_two_named_passages_or_a_shared_noun_there_is_no_answer():
    nlp = load_model()
    assert shared_answer("What do Hot Pixel and Halo have in common?", hits(("Hot Pixel", GAME)), nlp) is None
    assert shared_answer("What do Ralph Smart and Hot Pixel have in common?",
                         hits(("Ralph Smart", PRODUCER), ("Hot Pixel", GAME)), nlp) is None
    both = hits(("Hot Pixel", GAME), ("PlayStation Portable", CONSOLE))
    assert shared_answer("Who made Hot Pixel?", both, nlp) is None
