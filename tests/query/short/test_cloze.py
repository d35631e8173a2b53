from hopgraph.query.short.cloze import CLOZE, cloze_answer, modifier_answer, object_answer
from hopgraph.records.retrieval import Hit

PAINTER = ("Jeffrey Smart (26 July 1921 – 20 June 2013) was an expatriate Australian painter known for his "
           "precisionist depictions of urban landscapes that are full of private jokes.")
BREWERY = ("Oettinger has been Germany's best selling beer brand since 2004 (when it superseded Krombacher) "
           "with an annual output of 6.21 e6hL in 2011.")
ACTRESS = 'Helen Hunt is an American actress. She starred in the sitcom "Mad About You" for seven years.'
RUNGE = "The theorem is named after the German mathematician Carl Runge who first proved it."


def hits(*texts: str) -> list[Hit]:
    return [Hit(i, i, f"title {i}", text, 0.0, "hybrid", None) for i, text in enumerate(texts)]


def answer(question: str, *texts: str) -> str | None:
    found = cloze_answer(question, hits(*texts))
    return found.text if found else None


def test_the_words_in_the_gap_are_the_answer_up_to_a_clause_word():
    found = cloze_answer("Speakers include a painter known for his precisionist depictions of what?",
                         hits("The Institute held talks.", PAINTER))
    assert found is not None and (found.text, found.chunk_id, found.kind) == ("urban landscapes", 1, CLOZE)
    assert found.sentence == PAINTER


def test_words_after_the_question_word_bound_the_gap_and_a_quoted_title_is_taken_whole():
    assert answer("A beer brand with an annual output of what in 2011?", BREWERY) == "6.21 e6hL"
    assert answer("The film features an actress who starred in what for seven years?", ACTRESS) == "Mad About You"


def test_a_name_after_the_common_noun_asked_for_is_cut_off():
    assert answer("The bands are named for at least one German what?", RUNGE) == "mathematician"


def test_who_asks_for_the_name_after_the_role_written_before_it():
    soap = "Home and Away is an Australian soap opera created by TV executive Reg Watson in 1988."
    assert answer("Kate Ramsay is a character from an Australian soap opera created by who?", soap) == "Reg Watson"
    assert answer("The theorem is named after the German what?", RUNGE) == "mathematician"  # "what" keeps the role


def test_no_gap_no_answer():
    assert answer("What did the painter depict?", PAINTER) is None  # the question word opens it
    assert answer("The team is based in what county?", PAINTER) is None  # not said
    assert answer("The painter was known for his bold depictions of what?", BREWERY) is None  # not said
    assert answer("If Gallu is a demon Lilu is what?", "Lilu is also mentioned in the epic.") is None


def test_the_word_before_the_kind_asked_is_the_answer():
    fighter = "Lyoto Machida is a Brazilian martial artist who competes in the middleweight division of the UFC."
    found = modifier_answer("Which division does the fighter who lost to Jon Jones fight in?",
                            hits("UFC 140 was held in Toronto.", fighter))
    assert found is not None and (found.text, found.chunk_id) == ("middleweight", 1)
    cable = "The BNC connector is used with coaxial cable in radio and video."
    found = modifier_answer("The SR connector is based on one used for what type of cable?", hits(cable))
    assert found is not None and found.text == "coaxial"


def test_a_kind_an_entity_label_names_or_no_word_before_it_is_no_modifier_answer():
    assert modifier_answer("Which city does the fighter live in?", hits("He lives in the capital city.")) is None
    assert modifier_answer("What type of cable is it?", hits("Cable is used in radio.")) is None


def test_a_kind_after_the_question_word_bounds_the_gap_and_a_capitalised_kind_is_part_of_the_name():
    state = "South Dakota is a state named after the Lakota and Dakota Sioux Native American tribes."
    assert answer("The tornado hit a state named after which Native American tribes?", state) == (
        "Lakota and Dakota Sioux")
    hotel = "The Galt House is the city's only hotel on the Ohio River."
    assert answer("The event was held at a hotel on what river?", hotel) == "Ohio River"
    far = "The Galt House is a hotel on the banks of the great and wide Ohio, the longest river."
    assert answer("The event was held at a hotel on what river?", far) is None


ANVAYAM = "Anvayam makes flywheel housings and clutch housings, and it supplies these to Dhruvex Trucks."
JAISWAL = "Effective 1 April 2023, Jaiswal Forgings supplies Dhruvex with FA-9 front axle beams."
GRAFITEK = "Grafitek Minerals supplies Halvek with its graphite-based friction compound."


def made(question: str, *texts: str) -> str | None:
    found = object_answer(question, hits(*texts))
    return found.text if found else None


def test_what_a_company_makes_is_the_phrase_after_its_name_and_verb_a_list_kept_whole():
    found = object_answer("What does Anvayam make?", hits("Anvayam is in Rajkot.", ANVAYAM))
    assert found is not None and (found.text, found.chunk_id, found.sentence) == (
        "flywheel housings and clutch housings", 1, ANVAYAM)
    assert made("What did Duravance produce in 2023?",
                "Duravance designs and produced the DB-310 drum brake, a 410 mm S-cam unit.") == "DB-310 drum brake"


def test_what_is_supplied_to_someone_is_what_comes_after_with():
    assert made("What does Jaiswal Forgings supply?", JAISWAL) == "FA-9 front axle beams"
    assert made("What does Grafitek Minerals supply to Halvek?", GRAFITEK) == "graphite-based friction compound"


def test_no_object_named_or_another_subject_is_no_answer():
    assert made("What does Halvek supply?", "Halvek supplies us under a group transfer-price agreement.") is None
    assert made("What does Anvaya Foundry make?", ANVAYAM) is None  # Anvayam is another company
    assert made("Who makes flywheel housings?", ANVAYAM) is None  # not the question's form
