from hit_kit import hit

from hopgraph.query.short.kin import KIN, kin_answer, parent_in

LOUIS = "Louis III, Count of Blois (died 1372) was the son of Louis II of Châtillon and Jeanne of Hainaut."
LOUIS_II = ("Louis II of Châtillon (died 1346) was count of Blois. He was the son of Guy I, Count of Blois and "
            "Margaret of Valois.")


def test_a_paternal_grandparent_is_read_from_the_father_s_passage():
    hits = [hit(1, "Louis III, Count of Blois", LOUIS), hit(2, "Louis II of Châtillon", LOUIS_II)]
    found = kin_answer("Who is the paternal grandfather of Louis III, Count of Blois?", hits)
    assert found is not None and (found.text, found.chunk_id, found.kind) == ("Guy I, Count of Blois", 2, KIN)
    assert found.sentence == "He was the son of Guy I, Count of Blois and Margaret of Valois."
    grandmother = kin_answer("Who is Louis III, Count of Blois's paternal grandmother?", hits)
    assert grandmother is not None and grandmother.text == "Margaret of Valois"
    mother = kin_answer("Who is the mother of Louis III, Count of Blois?", hits)
    assert mother is not None and (mother.text, mother.chunk_id) == ("Jeanne of Hainaut", 1)


def test_no_passage_for_a_step_is_no_answer():
    hits = [hit(1, "Louis III, Count of Blois", LOUIS)]  # the father's own passage was not retrieved
    assert kin_answer("Who is the paternal grandfather of Louis III, Count of Blois?", hits) is None
    assert kin_answer("Who is the director of Louis III, Count of Blois?", hits) is None  # no kinship


def test_the_forms_a_biography_names_its_parents_in():
    waldeck = ("He was the son of George I, Prince of Waldeck and Pyrmont and Princess Augusta of "
               "Schwarzburg-Sondershausen.")  # "and" inside the father's style
    assert parent_in(waldeck, "father")[0] == "George I, Prince of Waldeck and Pyrmont"
    assert parent_in(waldeck, "mother")[0] == "Princess Augusta of Schwarzburg-Sondershausen"
    by_wife = "Axel was the son of Jacob De la Gardie by his wife Ebba Brahe."
    assert parent_in(by_wife, "mother")[0] == "Ebba Brahe"
    described = "Axel was the son of military commander Jacob De la Gardie and Ebba Brahe."  # words before him
    assert parent_in(described, "father")[0] == "Jacob De la Gardie"
    particles = "Henry was the son of George de la Poer Beresford and Elizabeth Monck."
    assert parent_in(particles, "father")[0] == "George de la Poer Beresford"
    said = "His father was King Jungjong, and his mother was Queen Janggyeong."
    assert parent_in(said, "father")[0] == "King Jungjong" and parent_in(said, "mother")[0] == "Queen Janggyeong"
    queen_first = "Edward was the son of Queen Anne and Prince George of Denmark."
    assert parent_in(queen_first, "father")[0] == "Prince George of Denmark"
    alone = "Duke Xuan was the son of Duke Xian of Qin. His reign was short."  # one parent alone: the father
    assert parent_in(alone, "father")[0] == "Duke Xian of Qin" and parent_in(alone, "mother") is None
    assert parent_in("She was born in Paris.", "father") is None
