import pytest
from hit_kit import hit

from hopgraph.query.short.compare import both_of_kind, choose_by_date, passage_of, same_attribute
from hopgraph.records.retrieval import Via
from hopgraph.text.nlp import load_model, parser_available


def test_born_first_takes_the_earlier_birth_year():
    hits = [hit(1, "Pablo Trapero", "Pablo Trapero (born 4 October 1971) is an Argentine film director."),
            hit(2, "Aleksander Ford", "Aleksander Ford (24 November 1908 – 4 April 1980) was a Polish film director.")]
    words = ["who", "was", "born", "first", "pablo", "trapero", "or", "aleksander", "ford"]
    assert choose_by_date(("Pablo Trapero", "Aleksander Ford"), words, hits)[0] == "Aleksander Ford"
    younger = ["who", "is", "younger", "pablo", "trapero", "or", "aleksander", "ford"]
    assert choose_by_date(("Pablo Trapero", "Aleksander Ford"), younger, hits)[0] == "Pablo Trapero"


def test_a_role_reads_the_date_from_the_passage_the_option_leads_to():
    hits = [hit(1, "Film A", "Film A is a 1950 film directed by Ann Smith."),
            hit(2, "Film B", "Film B is a 1940 film directed by Bob Jones."),
            hit(3, "Ann Smith", "Ann Smith (1900 – 1990) was a director.", Via(1, "Film A", "Ann Smith")),
            hit(4, "Bob Jones", "Bob Jones (1910 – 1960) was a director.", Via(2, "Film B", "Bob Jones"))]
    words = ["which", "film", "has", "the", "director", "who", "died", "later", "film", "a", "or", "film", "b"]
    chosen, source = choose_by_date(("Film A", "Film B"), words, hits)
    assert (chosen, source.title) == ("Film A", "Ann Smith")


def test_no_date_for_an_option_is_no_answer():
    hits = [hit(1, "X", "X is a village."), hit(2, "Y", "Y (born 1950) is a singer.")]
    assert choose_by_date(("X", "Y"), ["who", "was", "born", "first", "x", "or", "y"], hits) is None


@pytest.mark.skipif(not parser_available(), reason="spaCy's model is a core dependency")
def test_same_country_compares_what_the_two_named_passages_say():
    hits = [hit(1, "Chumbawamba", "Chumbawamba were an English rock band formed in 1982."),
            hit(2, "Spin Doctors", "Spin Doctors is an American rock band from New York City.")]
    found = same_attribute("Are Chumbawamba and Spin Doctors from the same country?", hits, load_model())
    assert (found.text, found.chunk_id) == ("no", 1)
    hits[1] = hit(2, "Oasis", "Oasis were an English rock band formed in Manchester in 1991.")
    assert same_attribute("Are Chumbawamba and Oasis from the same country?", hits, load_model()).text == "yes"


@pytest.mark.skipif(not parser_available(), reason="spaCy's model is a core dependency")
def test_a_passage_titled_with_a_note_is_named_by_the_question_without_it():
    hits = [hit(1, "Pick Me Up (magazine)", "Pick Me Up! is a British weekly women's magazine."),
            hit(2, "Woman's Viewpoint (magazine)", "The Woman's Viewpoint was a magazine founded in Texas in 1923.")]
    question = "Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?"
    assert same_attribute(question, hits, load_model()).text == "no"


def test_either_or_takes_the_option_the_evidence_says():
    hits = [hit(1, "The Sleepers", "The Sleepers are a pair of summits south of the Kancamagus Highway.")]
    found = same_attribute("Are the Sleepers located north or south of the Kancamagus Highway?", hits, None)
    assert (found.text, found.chunk_id) == ("south", 1)


def test_lived_longer_compares_life_spans_and_an_option_may_drop_its_the():
    hits = [hit(1, "The Sammy Drechsel", "Sammy Drechsel (25 April 1925 – 19 January 1986) was a cabaret artist."),
            hit(2, "Wolfgang Fischer", "Wolfgang Fischer (14 March 1928 – 30 October 1974) was a German footballer.")]
    words = ["who", "lived", "longer", "sammy", "drechsel", "or", "wolfgang", "fischer"]
    chosen, source = choose_by_date(("Sammy Drechsel", "Wolfgang Fischer"), words, hits)
    assert (chosen, source.chunk_id) == ("Sammy Drechsel", 1)  # 60 years against 46


def test_a_yes_no_question_no_evidence_decides_has_no_answer():
    # A guessed "yes" (the majority answer) or "no" would be an invented answer (issue 22).
    hits = [hit(1, "Nantong", "Nantong is a prefecture-level city in Jiangsu province, China."),
            hit(2, "Jingdezhen", "Jingdezhen is a prefecture-level city in Jiangxi province, China.")]
    assert same_attribute("Are Marian Gold and Jung Eun-ji members of the same band?", hits, None) is None
    assert same_attribute("Are Nantong and Jingdezhen both seaports?", hits, None) is None


def test_both_of_a_kind_is_yes_when_each_ones_passage_opens_saying_it():
    hits = [hit(1, "Nantong", "Nantong is a prefecture-level city in Jiangsu province, China."),
            hit(2, "Jingdezhen", "Jingdezhen is a prefecture-level city in Jiangxi province, China.")]
    assert same_attribute("Are Nantong and Jingdezhen both cities?", hits, None).text == "yes"
    bands = [hit(1, "Superdrag", "Superdrag was an American alternative rock band from Knoxville."),
             hit(2, "Collective Soul (2009 album)", "Collective Soul is the eighth album by American rock band "
                                                    "Collective Soul."),
             hit(3, "Knoxville", "Knoxville is a city in Tennessee.")]
    # "both A and B KIND": where B ends and the kind starts is where a passage is titled
    answer = same_attribute("Are both Superdrag and Collective Soul rock bands?", bands, None)
    assert answer.text == "yes" and answer.chunk_id == 1


def test_both_of_a_kind_is_never_a_guessed_no():
    # One passage does not open with every word of the kind: no evidence either way, no answer.
    hits = [hit(1, "King Vidor", "King Vidor was an American film director and producer."),
            hit(2, "Géza von Cziffra", "Géza von Cziffra was a Hungarian and Austrian film director.")]
    assert both_of_kind("Are King Vidor and Géza von Cziffra both American directors?", hits) is None
    assert both_of_kind("Are King Vidor and Géza von Cziffra both directors?", hits).text == "yes"
    assert both_of_kind("Are King Vidor and Géza von Cziffra both of the same kind?", hits) is None


def test_someone_still_living_has_lived_longer_than_one_who_died_young():
    hits = [hit(1, "Lew Shore", "Lew Shore (October 11, 1885 – December 28, 1934) was an American film director."),
            hit(2, "Jon Kay", "Jon Kay (born November 25, 1947) is an American film director.")]
    words = ["which", "director", "lived", "longer", "lew", "shore", "or", "jon", "kay"]
    chosen, source = choose_by_date(("Lew Shore", "Jon Kay"), words, hits)
    assert (chosen, source.chunk_id) == ("Jon Kay", 2)
    undated = [hits[0], hit(2, "Jon Kay", "Jon Kay is an American film director.")]
    assert choose_by_date(("Lew Shore", "Jon Kay"), words, undated) is None


def test_an_option_s_title_words_are_not_the_comparison_s_words():
    from hopgraph.query.short.expected import expected_answer

    hits = [hit(1, "Death for Sale", "Death for Sale is a 2011 film directed by Faouz Bens."),
            hit(2, "Faouz Bens", "Faouz Bens (born 14 March 1967) is a Moroccan film director."),
            hit(3, "The Family Feast", "The Family Feast is a 2012 film written and directed by Ed Burn."),
            hit(4, "Ed Burn", "Ed Burn (born January 29, 1968) is an American director.")]
    expected = expected_answer("Which film has the director who is older, Death For Sale or The Family Feast?")
    assert "death" in expected.words and "death" not in expected.outside
    chosen, source = choose_by_date(expected.options, expected.outside, hits)
    assert (chosen, source.chunk_id) == ("Death For Sale", 2)  # born 1967, no date of death asked


def test_an_option_s_passage_may_write_its_name_in_full():
    hits = [hit(1, "Jonathan Kaplan", "Jonathan Kaplan (born November 25, 1947) is an American film director."),
            hit(2, "Lowell J. Sherman", "Lowell J. Sherman (October 11, 1885 – December 28, 1934) was an actor.")]
    words = ["who", "was", "born", "first", "lowell", "sherman", "or", "jonathan", "kaplan"]
    assert choose_by_date(("Lowell Sherman", "Jonathan Kaplan"), words, hits)[0] == "Lowell Sherman"
    assert passage_of("Lowell Kaplan", hits) is None  # first and last words must both agree


def test_an_option_with_a_note_finds_the_passage_named_without_it():
    hits = [hit(1, "Made Men", "Made Men is a 1999 film produced by HBO."),
            hit(2, "Mystère à Shanghai", "Mystère à Shanghai is a 1950 French crime film.")]
    words = ["which", "film", "came", "out", "first", "made", "men", "film", "or", "mystère", "à", "shanghai"]
    chosen, source = choose_by_date(("Made Men (Film)", "Mystère À Shanghai"), words, hits)
    assert (chosen, source.chunk_id) == ("Mystère À Shanghai", 2)
    assert passage_of("Made Men (Film)", hits).chunk_id == 1
