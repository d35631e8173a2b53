import pytest

from hopgraph.query.short.expected import CHOICE, DATE, EXPLAIN, PERSON, PLACE, YESNO, expected_answer


@pytest.mark.parametrize(("question", "kind", "label"), [
    ("The Ran Paul presidential campaign, 2016 event was held at a hotel on what river?", "ENTITY", "LOC"),
    ("The director of Big Stone Gap is based in what New York city?", "ENTITY", "GPE"),
    ("What Cuban president overthrew Mary Tarrero-Serrano?", "ENTITY", "PERSON"),
    ("Who directed the film Timber Falls?", "ENTITY", "PERSON"),
    ("When was the director of Timber Falls born?", "ENTITY", "DATE"),
    ("Where was the director of film Timber Falls born?", "ENTITY", "GPE"),
    ("How many members does the band have?", "ENTITY", "CARDINAL"),
    ("In what year did the war end?", "ENTITY", "DATE"),
    ("Are both Cypress and Ajuga genera?", YESNO, None),
    ("Where did the director of film Farewell Performance graduate from?", "ENTITY", "ORG"),  # a school
    ("Which award the director of film Satya Mithya earned?", "ENTITY", "WORK_OF_ART"),
    ("What was the population of the town where the tugboat is moored?", "ENTITY", "CARDINAL"),
    ("The fashion show features what fashion model who was born in 1988?", "ENTITY", "PERSON"),
    ("Which car maker gets its seats from Plushon Seating Systems?", "ENTITY", "ORG"),  # a buyer or a supplier
    ("Which brake-pad maker buys its friction compound from a company in Hosur?", "ENTITY", "ORG"),
    ("Which supplier's flooded press shop cut the caliper output?", "ENTITY", "ORG"),
    ("Why did Dhruvex build fewer Haul 31 trucks in February 2025?", EXPLAIN, None),  # a reason, no span
    ("How did the strike change the Kestrel's launch?", EXPLAIN, None),
    ("What happened to Jaiswal's press shop in Pithampur in August 2024?", EXPLAIN, None),
    ("What caused the shortage of the front calipers that the Tarini uses?", EXPLAIN, None),  # a reason
    ("What is the cause of death of the director?", "ANY", None),  # a cause named by a noun is a span
    ("How many people work at the plant?", "ENTITY", "CARDINAL"),  # "how" + an amount is no account
    ("Who was Marley?", EXPLAIN, None),  # what he was, not another name near his
    ("Imagine you are Felicia. Write a diary entry about Mr. Hinze.", EXPLAIN, None),  # an instruction
    ("Describe how the Cratchits keep Christmas.", EXPLAIN, None),
    ("who is Adriana Trigiani?", EXPLAIN, None),
])
def test_the_question_words_say_what_kind_of_answer_is_wanted(question, kind, label):
    expected = expected_answer(question)
    assert expected.kind == kind
    if label:
        assert label in expected.labels


def test_who_with_a_person_s_role_wants_a_person_and_plain_who_also_an_organisation():
    assert expected_answer("Who is the managing director of Anvaya Foundry?").labels == PERSON
    assert expected_answer("Who supplies the brake pads for the CX-40 caliper?").labels == PERSON | {"ORG"}


def test_what_a_company_makes_or_supplies_is_a_product_never_a_company_person_or_place():
    for question in ("What does Anvaya Foundry make?", "What does Halvek Friction supply to Corvane?",
                     "what did the plant produce in 2023?"):
        expected = expected_answer(question)
        assert expected.kind == "ANY" and {"ORG", "PERSON", "GPE"} <= expected.excluded
    assert not expected_answer("What does the report say about Halvek?").excluded  # no making verb


def test_how_many_names_the_counted_noun_as_the_kind_said_after_the_number():
    assert expected_answer("How many pads a year can Halvek make?").head == "pads"
    assert expected_answer("How many were sold?").head == ""  # no noun counted


def test_a_question_naming_two_options_wants_one_of_them():
    expected = expected_answer("Which film has the director who died later, The More The Merrier or Sleep, My Love?")
    assert expected.kind == CHOICE and expected.options == ("More The Merrier", "Sleep, My Love")
    assert expected_answer("Who was born first, Pablo Trapero or Aleksander Ford?").options == (
        "Pablo Trapero", "Aleksander Ford")


def test_label_sets_do_not_overlap_where_a_wrong_type_would_pass():
    assert not (PLACE & DATE) and not (PERSON & PLACE)


def test_the_head_noun_is_kept_and_schooling_is_not_a_place():
    assert expected_answer("The event was held at a hotel on what river?").head == "river"
    assert expected_answer("Who directed it?").head == ""
    assert "GPE" not in expected_answer("Where did Rune Ottosen's father study?").labels


@pytest.mark.parametrize(("question", "head"), [
    # a relative "which" names no kind: the next "what"/"which" does
    ("Steve Johnson coaches at a University which also has a second campus in which California city?", "city"),
    ("The Nanny, which he created with his then wife, an actress born in which year ?", "year"),
    ("What is the name of the pop band founded by one of the stars of Aisa Yeh Jahaan?", "band"),
])
def test_the_head_noun_is_found_after_a_relative_which_and_after_the_name_of(question, head):
    assert expected_answer(question).head == head


def test_options_named_first_with_between_make_a_choice():
    found = expected_answer("Between Iris and Tulipa, which genus of plant is larger?")
    assert (found.kind, found.options) == (CHOICE, ("Iris", "Tulipa"))
    assert expected_answer("What lies between the river and the hills?").kind != CHOICE


@pytest.mark.parametrize(("question", "options"), [
    ("Which band was formed first The Exies or Circus Diablo ?", ("The Exies", "Circus Diablo")),  # no comma
    ("Was David Fennario or Peter Emanuel Falck born first?", ("David Fennario", "Peter Emanuel Falck")),
    ("Who was born first out of Eric Tanenblatt and Craig L. Fuller?", ("Eric Tanenblatt", "Craig L. Fuller")),
    ("Which film has the director born earlier, Whoever Slew Auntie Roo? or Places In The Heart?",
     ("Whoever Slew Auntie Roo?", "Places In The Heart")),  # a title that ends in a question mark
])
def test_options_without_a_comma_before_them_make_a_choice(question, options):
    found = expected_answer(question)
    assert (found.kind, found.options) == (CHOICE, options)


def test_a_yes_no_question_after_a_statement_is_yes_no_and_an_or_without_a_comparison_is_no_choice():
    assert expected_answer("The director Armando Iannucci has an OBE. Does Puneet Sira also have one?").kind == YESNO
    assert expected_answer("Was the film shot in Leland or in Wilmington?").kind == YESNO
    assert expected_answer("Which came first the forming of The Dandy Warhols or the birth of Robert Young?"
                           ).kind != CHOICE  # no name follows "first": nothing to look up
