import pytest

from hopgraph.query.short.spans import best_sentences, entity_spans, second_hops
from hopgraph.records.retrieval import Hit, Via
from hopgraph.text.nlp import load_model, parser_available

FILM = Hit(1, 1, "Big Stone Gap (film)", "Big Stone Gap is a 2014 film directed by Adriana Trigiani. It was shot in "
           "Virginia.", 0.0, "name", Via(-1, "question", "Big Stone Gap"))
AUTHOR = Hit(2, 2, "Adriana Trigiani", "Adriana Trigiani is an author. She lives in Greenwich Village, New York City.",
             0.0, "link", Via(1, "Big Stone Gap (film)", "Adriana Trigiani"))
OTHER = Hit(3, 3, "Stone Age", "The Stone Age was a broad prehistoric period.", 0.0, "hybrid", None)
QUESTION = "Where does the director of Big Stone Gap live?"


def test_a_passage_reached_by_a_link_or_named_by_the_first_is_a_second_hop():
    assert second_hops(QUESTION, [FILM, AUTHOR, OTHER]) == [False, True, False]
    unlinked = Hit(2, 2, AUTHOR.title, AUTHOR.text, 0.0, "hybrid", None)  # its title is in the film's text
    assert second_hops(QUESTION, [FILM, unlinked, OTHER]) == [False, True, False]


def test_the_relation_word_and_the_second_hop_lift_a_sentence_over_one_sharing_more_words():
    best = best_sentences(QUESTION, [FILM, AUTHOR, OTHER], frozenset({"lives"}), limit=2)
    assert best[0].text == "She lives in Greenwich Village, New York City." and best[0].chunk_id == 2
    assert len(best) == 2 and best[0].score > best[1].score
    # without a relation word, the second hop's lead still comes first; with no second hop, shared words decide
    assert best_sentences(QUESTION, [FILM, AUTHOR, OTHER], frozenset(), limit=1)[0].chunk_id == 2
    assert [s.text for s in best_sentences("Which film was directed in 2014?", [OTHER, FILM], frozenset(), 1)] == [
        "Big Stone Gap is a 2014 film directed by Adriana Trigiani."]


def test_a_heading_is_no_candidate_sentence_and_the_first_prose_sentence_is_the_lead():
    # "# Corvane Takes a Controlling Stake in Halvek Friction" shares more words with the question
    # than any sentence: quoted as the answer's sentence, it named the wrong company.
    news = Hit(4, 4, "Corvane Takes a Controlling Stake in Halvek Friction",
               "# Corvane Takes a Controlling Stake in Halvek Friction\n\nThe CX-40 caliper uses a pad bought "
               "from Halvek Friction.", 0.0, "hybrid", None)
    best = best_sentences("Who supplies the pad of the CX-40 caliper that Corvane makes?", [news], frozenset(), 5)
    assert [s.text for s in best] == ["The CX-40 caliper uses a pad bought from Halvek Friction."]
    heading_only = Hit(5, 5, "Notice", "# Corvane Takes a Controlling Stake in Halvek Friction", 0.0, "hybrid", None)
    assert best_sentences("Who owns Halvek Friction?", [heading_only], frozenset(), 5) == []


@pytest.mark.skipif(not parser_available(), reason="spaCy's model is a core dependency")
def test_entities_of_the_chosen_sentences_only():
    sentences = best_sentences(QUESTION, [FILM, AUTHOR, OTHER], frozenset({"lives"}), limit=1)
    spans = entity_spans(sentences, load_model())
    assert "Greenwich Village" in [span.text for span in spans]
    assert all(span.sentence is sentences[0] for span in spans)  # nothing from the film's passage
    village = next(span for span in spans if span.text == "Greenwich Village")
    assert sentences[0].text[village.start:].startswith("Greenwich Village")


@pytest.mark.skipif(not parser_available(), reason="spaCy's model is a core dependency")
def test_a_date_keeps_the_day_the_recogniser_left_before_it():
    from hopgraph.query.short.spans import Sentence

    sentence = Sentence("Hermann II (1285 – 2 February 1345) was Landgrave of Hesse.", 0, 1, 1.0)
    dates = [span.text for span in entity_spans([sentence], load_model()) if span.label == "DATE"]
    assert "2 February 1345" in dates and "February 1345" not in dates
