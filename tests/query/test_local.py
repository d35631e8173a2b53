"""Local search: entities named in a question, the bounded walk, and source chunks (or falling open)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.query.local import GraphView, LocalBudget, bounded_bfs, local_search, question_entities
from hopgraph.records.documents import Document
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation, Source

# --- entities in the question ------------------------------------------------------------------------

NAMED = KnowledgeGraph({1: Entity(1, "Corvane Brake Systems", "ORG", aliases=["CBS", "Corvane Brakes"]),
                        2: Entity(2, "Zephyra Motors", "ORG"),
                        3: Entity(3, "Hosur", "LOCATION")})


def test_question_entities_finds_names_and_aliases_ignoring_case():
    view = GraphView(NAMED)
    assert question_entities(view, "Does cbs sell to ZEPHYRA MOTORS?") == [1, 2]
    assert question_entities(view, "what do corvane brakes make in hosur") == [1, 3]


def test_an_entity_named_by_two_aliases_is_one_seed():
    assert question_entities(GraphView(NAMED), "Is CBS the same company as Corvane Brakes?") == [1]


def test_question_entities_match_whole_words_only():
    assert question_entities(GraphView(NAMED), "Who are the CBSE toppers in Hosurpet?") == []


# --- the bounded walk --------------------------------------------------------------------------------
# S is the seed. S–N1 weighs 3, S–N3 weighs 2, S–N2 weighs 1; N1–M1 and N2–M2 are a second hop away.
STAR = [("S", "N1", 3), ("S", "N2", 1), ("S", "N3", 2), ("N1", "M1", 1), ("M2", "N2", 1)]


def star() -> KnowledgeGraph:
    names = ["S", "N1", "N2", "N3", "M1", "M2"]
    ids = {name: i for i, name in enumerate(names, start=1)}
    relations = [Relation(number, ids[a], "RELATED_TO", ids[b],
                          sources=[Source(100 * number + k, number) for k in range(weight)])
                 for number, (a, b, weight) in enumerate(STAR, start=1)]
    return KnowledgeGraph({i: Entity(i, name, "ORG") for name, i in ids.items()}, relations)


def walk(**budget: int) -> tuple[list[str], dict[str, int]]:
    """The relations kept, as 'source-target', and the hop distance of every entity reached."""
    graph = star()
    kept, reached = bounded_bfs(graph, [1], LocalBudget(**budget))
    return ([f"{graph.entities[r.source].name}-{graph.entities[r.target].name}" for r in kept],
            {graph.entities[e].name: hop for e, hop in reached.items()})


def test_the_walk_keeps_nearest_then_heaviest_relations_in_both_directions():
    assert walk()[0] == ["S-N1", "S-N3", "S-N2", "N1-M1", "M2-N2"]


def test_the_walk_reports_the_hop_distance_of_every_entity_reached():
    assert walk()[1] == {"S": 0, "N1": 1, "N3": 1, "N2": 1, "M1": 2, "M2": 2}


def test_max_hops_bounds_the_walk():
    kept, reached = walk(max_hops=1)
    assert kept == ["S-N1", "S-N3", "S-N2"]
    assert set(reached) == {"S", "N1", "N2", "N3"}


def test_fan_out_takes_the_heaviest_edges_of_each_entity():
    kept, reached = walk(fan_out=2)
    assert kept == ["S-N1", "S-N3", "N1-M1"]  # S-N2, the lightest, is never taken: nor is M2-N2
    assert "N2" not in reached


def test_max_relations_caps_the_relations_kept():
    assert walk(max_relations=2)[0] == ["S-N1", "S-N3"]


def test_max_nodes_stops_the_walk_entering_more_entities():
    kept, reached = walk(max_nodes=2)  # S and its heaviest neighbour N1: only N1 is walked on from
    assert reached == {"S": 0, "N1": 1}
    assert "N1-M1" in kept and "M2-N2" not in kept


def test_the_walk_takes_only_relations_that_hold_today_or_on_the_day_asked():
    """S–N1 (the heaviest) ended in 2022 and S–N3 is superseded: today the walk neither keeps them
    nor enters N1 through them, as `paths` would not; on a day in 2021 it takes S–N1 again."""
    graph = star()
    graph.relations[0].valid_until = "2022"
    graph.relations[2].superseded_by, graph.relations[2].valid_until = 2, "2023"
    kept, reached = bounded_bfs(graph, [1], LocalBudget())
    assert [r.id for r in kept] == [2, 5] and set(reached) == {1, 3, 6}
    assert [r.id for r in bounded_bfs(graph, [1], LocalBudget(), "2021-06-01")[0]] == [1, 3, 2, 4, 5]


def test_a_seed_without_relations_reaches_only_itself():
    graph = star()
    graph.entities[9] = Entity(9, "Lonely", "ORG")
    assert bounded_bfs(graph, [9], LocalBudget()) == ([], {9: 0})


# --- local search over a store -----------------------------------------------------------------------

DOCS = [
    Document("Anvaya profile", "Anvaya Foundry runs a grey-iron plant in Hosur, Tamil Nadu.", "kg"),
    Document("Supply agreement", "Anvaya Foundry supplies brake-disc castings to Corvane Brake Systems.", "kg"),
    Document("Zephyra contract", "Corvane Brake Systems supplies calipers to Zephyra Motors.", "kg"),
    Document("Weather report", "Heavy monsoon rain is expected on the coast this week.", "kg"),
]
TRIPLES = """subject,relation,object,source,date,subject_type,object_type
Anvaya Foundry,LOCATED_IN,Hosur,Anvaya profile,,ORG,LOCATION
Anvaya Foundry,SUPPLIES,Corvane Brake Systems,Supply agreement,2021,ORG,ORG
Corvane Brake Systems,SUPPLIES,Zephyra Motors,Zephyra contract,,ORG,ORG
"""


@pytest.fixture
def hg(tmp_path: Path) -> Iterator[HopGraph]:
    graph = HopGraph(str(tmp_path / "local.db"), Settings(), embedder=BagOfWordsEmbedder())
    graph.index_documents(DOCS)
    (tmp_path / "triples.csv").write_text(TRIPLES, encoding="utf-8")
    graph.import_triples(tmp_path / "triples.csv")
    yield graph
    graph.close()


def chunk_of(hg: HopGraph, title: str) -> int:
    table = hg.store.chunk_table()
    doc_id = next(d for d, t in table.titles.items() if t == title)
    return int(table.ids[table.doc_ids.tolist().index(doc_id)])


def titles(result) -> set[str]:
    return {h.title for h in result.retrieval.hits}


def test_local_search_returns_the_chunks_of_the_entities_the_walk_reaches(hg):
    result = hg.local("Where does Anvaya Foundry make its castings?", LocalBudget(max_hops=1))
    assert [e.name for e in result.seeds] == ["Anvaya Foundry"]
    assert result.fell_open == ""
    assert result.retrieval.method == "local"
    assert {r.relation for r in result.relations} == {"LOCATED_IN", "SUPPLIES"}
    hits = result.retrieval.hits
    assert all(h.found_by == "graph" for h in hits)
    # Anvaya Foundry, Hosur and Corvane Brake Systems are reached; the weather report names none of them.
    assert titles(result) == {"Anvaya profile", "Supply agreement", "Zephyra contract"}
    assert {chunk_of(hg, "Anvaya profile"), chunk_of(hg, "Supply agreement")} <= {h.chunk_id for h in hits}


def test_a_graph_hit_says_which_walked_relation_its_chunk_states(hg):
    result = hg.local("Where does Anvaya Foundry make its castings?", LocalBudget(max_hops=1))
    supply = next(h for h in result.retrieval.hits if h.title == "Supply agreement")
    assert supply.via is not None and supply.via.from_title == "Anvaya Foundry"
    assert supply.via.name == "SUPPLIES Corvane Brake Systems"


def test_max_hops_bounds_the_entities_whose_chunks_are_returned(hg):
    question = "Who buys from Zephyra Motors' supplier?"
    one_hop = hg.local(question, LocalBudget(max_hops=1))
    assert titles(one_hop) == {"Zephyra contract", "Supply agreement"}  # Zephyra and Corvane
    two_hops = hg.local(question, LocalBudget(max_hops=2))
    assert titles(two_hops) == {"Zephyra contract", "Supply agreement", "Anvaya profile"}  # and Anvaya


def test_top_bounds_the_chunks_returned(hg):
    result = hg.local("Anvaya Foundry", LocalBudget(top=1))
    assert len(result.retrieval.hits) == 1


def test_an_entity_near_the_question_by_embedding_seeds_the_walk(hg):
    result = hg.local("foundry anvaya news", LocalBudget(max_hops=1))
    assert [e.name for e in result.seeds] == ["Anvaya Foundry"]
    assert "entity names nearest the question" in result.retrieval.trace[0].detail
    assert all(h.found_by == "graph" for h in result.retrieval.hits)


def test_a_question_naming_no_entity_falls_open_to_hybrid_search_and_says_why(hg):
    result = hg.local("Is heavy monsoon rain expected this week?")
    assert result.fell_open == "no entity of the question is in the graph"
    assert result.seeds == [] and result.relations == []
    hits = result.retrieval.hits
    assert hits and all(h.found_by == "hybrid" for h in hits)
    assert hits[0].title == "Weather report"
    fall_open = [step for step in result.retrieval.trace if step.stage == "fall open"]
    assert len(fall_open) == 1 and result.fell_open in fall_open[0].detail


def test_a_named_entity_without_relations_falls_open_too(hg):
    view = GraphView(KnowledgeGraph({1: Entity(1, "Anvaya Foundry", "ORG")}))
    result = local_search(view, hg.search_index, "Tell me about Anvaya Foundry", LocalBudget())
    assert result.fell_open == "the graph walk found no chunks"
    assert all(h.found_by == "hybrid" for h in result.retrieval.hits)
