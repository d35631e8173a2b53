from hit_kit import hit

from hopgraph.query.short.options import choose_by_amount, choose_by_description

QINZHOU = "Qinzhou is a prefecture-level city in Guangxi, founded in 1955, with an urban population of 433,000."
JINGJIANG = "Jingjiang is a county-level city in Jiangsu. It has a population of 684,360 people."


def words(question: str) -> list[str]:
    return question.lower().replace(",", " ").replace("?", " ").split()


def test_the_number_beside_the_compared_word_decides_and_a_year_is_not_a_number():
    hits = [hit(1, "Qinzhou", QINZHOU), hit(2, "Jingjiang", JINGJIANG)]
    options = ("Qinzhou", "Jingjiang")
    chosen, source = choose_by_amount(options, words("Which has a higher population, Qinzhou or Jingjiang?"), hits)
    assert (chosen, source.chunk_id) == ("Jingjiang", 2)
    smaller = words("Which has a smaller population, Qinzhou or Jingjiang?")
    assert choose_by_amount(options, smaller, hits)[0] == "Qinzhou"


def test_no_number_or_no_comparison_word_is_no_answer():
    hits = [hit(1, "Qinzhou", QINZHOU), hit(2, "Jingjiang", "Jingjiang is a city in Jiangsu.")]
    options = ("Qinzhou", "Jingjiang")
    assert choose_by_amount(options, words("Which has more people, Qinzhou or Jingjiang?"), hits) is None
    assert choose_by_amount(options, words("Which is in Guangxi, Qinzhou or Jingjiang?"), hits) is None


def test_the_option_whose_passage_says_clearly_more_of_the_question_is_chosen():
    hits = [hit(1, "North Bend Airport", "North Bend Airport is operated by the Coos County Airport District."),
            hit(2, "Lawton Airport", "Lawton Airport is a city owned airport in Oklahoma.")]
    question = "Which airport is operated by the Coos County Airport District, North Bend Airport or Lawton Airport?"
    chosen, source = choose_by_description(question, ("North Bend Airport", "Lawton Airport"), hits)
    assert (chosen, source.chunk_id) == ("North Bend Airport", 1)
    assert choose_by_description("Which airport is older, North Bend Airport or Lawton Airport?",
                                 ("North Bend Airport", "Lawton Airport"), hits) is None


def test_the_number_must_stand_by_every_compared_word_and_a_title_s_note_does_not_hide_the_passage():
    gottfried = "Brian Gottfried is a tennis player who won 25 singles titles and 54 doubles titles."
    fleming = ("Peter Blair Fleming is a tennis player. In doubles with John McEnroe he won 52 titles. As a "
               "singles player he won 3 titles.")  # its passage opens with another form of the name
    hits = [hit(1, "Brian Gottfried", gottfried), hit(2, "Peter Fleming (tennis)", fleming)]
    question = words("Who has more singles titles, Brian Gottfried or Peter Fleming?")
    chosen, source = choose_by_amount(("Brian Gottfried", "Peter Fleming"), question, hits)
    assert (chosen, source.chunk_id) == ("Brian Gottfried", 1)  # 25 against 3, not against 52


def test_small_amounts_written_in_words_are_numbers():
    hits = [hit(1, "Rosella", "Rosella is a genus of about 150 species of flowering plants."),
            hit(2, "Milkwort", "Milkwort is a genus of two species of thistles.")]
    question = words("Which genus has more species, Rosella or Milkwort?")
    chosen, source = choose_by_amount(("Rosella", "Milkwort"), question, hits)
    assert (chosen, source.chunk_id) == ("Rosella", 1)
    fewer = words("Which genus has fewer species, Rosella or Milkwort?")
    assert choose_by_amount(("Rosella", "Milkwort"), fewer, hits)[0] == "Milkwort"


def test_one_word_only_one_option_s_passage_says_is_enough_and_a_tie_is_none():
    hits = [hit(1, "Ann Roe", "Ann Roe (born 1970) is an American singer and songwriter."),
            hit(2, "Bo Lim", "Bo Lim (born 1958) is an English musician and lead singer of a band.")]
    chosen, _ = choose_by_description("Which singer is American, Ann Roe or Bo Lim?", ("Ann Roe", "Bo Lim"), hits)
    assert chosen == "Ann Roe"
    assert choose_by_description("Which singer is older, Ann Roe or Bo Lim?", ("Ann Roe", "Bo Lim"), hits) is None


def test_a_tie_over_the_whole_passages_is_settled_by_what_each_option_is():
    # both passages say "genus", "plant" and "subfamily"; only one's opening sentence names the subfamily asked
    hits = [hit(1, "Aspen Lily", "Aspen Lily is a genus of flowering plants, subfamily Nolinoideae. A house plant."),
            hit(2, "Cyrtus", "Cyrtus is a genus of bulbous plants, subfamily Amaryllidoideae.")]
    question = "Between Aspen Lily and Cyrtus, which genus of plant belongs to the subfamily Amaryllidoideae?"
    chosen, source = choose_by_description(question, ("Aspen Lily", "Cyrtus"), hits)
    assert (chosen, source.chunk_id) == ("Cyrtus", 2)
