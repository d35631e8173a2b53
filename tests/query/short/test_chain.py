from hit_kit import hit

from hopgraph.query.short.chain import bridge_of

FILM = "Diplomats is a 1999 German comedy film directed by Wolf Gremm and starring Eddi Arent."
DIRECTOR = "Wolf Gremm (26 February 1942 – 1 November 2015) was a German film director born in Düsseldorf."
ACTOR = "Eddi Arent (5 May 1925 – 28 May 2013) was a German actor born in Danzig."


def test_the_bridge_is_the_passage_named_right_after_the_role_s_words():
    hits = [hit(0, "Diplomats (Film)", FILM), hit(1, "Eddi Arent", ACTOR), hit(2, "Wolf Gremm (director)", DIRECTOR)]
    bridge = bridge_of("What is the place of birth of the director of film Diplomats (Film)?", hits)
    assert bridge is not None and bridge.chunk_id == 2  # not the actor, whom "directed by" does not precede


def test_no_role_no_named_passage_or_no_name_after_the_role_is_no_bridge():
    hits = [hit(0, "Diplomats (Film)", FILM), hit(1, "Eddi Arent", ACTOR), hit(2, "Wolf Gremm", DIRECTOR)]
    assert bridge_of("When was Diplomats released?", hits) is None
    assert bridge_of("Where was the director of film Hondo born?", hits) is None
    assert bridge_of("Where was the composer of film Diplomats born?", hits) is None


def test_in_a_chain_of_roles_the_one_nearest_the_named_thing_is_the_bridge():
    hits = [hit(0, "Diplomats (Film)", FILM), hit(1, "Eddi Arent", ACTOR), hit(2, "Wolf Gremm", DIRECTOR)]
    bridge = bridge_of("Who is the spouse of the director of film Diplomats (Film)?", hits)
    assert bridge is not None and bridge.chunk_id == 2  # the director's passage, then his spouse in it
