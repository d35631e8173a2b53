"""`ppr` and `+ppr` through HopGraph.ask on the tiny two-hop corpus (bag-of-words embedder)."""

from __future__ import annotations

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.records.documents import Document
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval.methods import MethodSpec, parse_method

BSG = "The director of Big Stone Gap is based in what New York city?"


def titles(retrieval) -> list[str]:
    return [hit.title for hit in retrieval.hits]


def test_ppr_is_hybrid_with_names_and_the_walk():
    assert parse_method("ppr") == MethodSpec("hybrid", True, False, True)
    assert parse_method("hybrid+names+links+ppr") == MethodSpec("hybrid", True, True, True)
    with pytest.raises(InputError, match="ppr"):
        parse_method("hybrid+ppr+ppr")


def test_ppr_reaches_the_director_from_the_film_the_question_names(tiny_graph):
    retrieval = tiny_graph.search(BSG, method="ppr", top=4, seeds=0)  # the film names two people
    film = retrieval.hits[0]
    assert (film.title, film.found_by) == ("Big Stone Gap (film)", "name")
    director = next(hit for hit in retrieval.hits if hit.title == "Adriana Trigiani")
    assert director.found_by == "ppr"
    assert director.via.from_title == "Big Stone Gap (film)"
    # The via name is the neighbouring name holding most of the film's mass: at damping 0.85 that is
    # the one her paragraph mentions (Greenwich Village), not her own (0.5 gave "Adriana Trigiani").
    assert director.via.name == "Greenwich Village"
    assert 0 < director.stage_score < 1  # the PPR mass, not the ranker's score


def test_ppr_walks_two_hops_before_the_ranker_fills(tiny_graph):
    found = tiny_graph.search(BSG, method="ppr", top=4, seeds=0)
    assert titles(found)[0] == "Big Stone Gap (film)"
    # One link away (the director, the producer) and two (her neighbourhood), before any ranker hit.
    # At damping 0.85 the director passes most of her mass on: Greenwich Village comes before her.
    assert titles(found)[1:] == ["Donna Gigliotti", "Greenwich Village", "Adriana Trigiani"]
    assert [hit.found_by for hit in found.hits[1:]] == ["ppr", "ppr", "ppr"]
    # Greenwich Village is two links from the film: plain hybrid search does not bring it in.
    assert "Greenwich Village" not in titles(tiny_graph.search(BSG, method="hybrid", top=4))


def test_the_walk_follows_a_link_backwards_where_links_cannot(tiny_graph):
    question = "What is Donna Gigliotti known for?"  # the film mentions her; her paragraph names nothing
    walked = tiny_graph.search(question, method="hybrid+names+links+ppr", top=2, seeds=0)
    assert titles(walked) == ["Donna Gigliotti", "Big Stone Gap (film)"]
    assert walked.hits[1].found_by == "ppr"
    linked = tiny_graph.search(question, method="hybrid+names+links", top=2, seeds=0)
    assert all(hit.found_by != "link" for hit in linked.hits)


def test_the_trace_reports_the_walk_and_what_it_used(tiny_graph):
    retrieval = tiny_graph.search(BSG, method="ppr", top=4, seeds=0)
    stages = [step.stage for step in retrieval.trace]
    assert stages == ["embed question", "vector", "bm25", "fuse", "names", "ppr", "fill"]
    ppr = next(step for step in retrieval.trace if step.stage == "ppr")
    assert "damping 0.85" in ppr.detail and "placed 3 by mass" in ppr.detail
    assert ppr.ms >= 0


def test_when_the_walk_reaches_nothing_the_ranker_fills_and_its_hits_become_seeds(tiny_graph):
    # Nothing named; the ranker's first hit is the film, whose neighbours the walk then places.
    question = "Which 2014 film was written and produced by two women?"
    retrieval = tiny_graph.search(question, method="ppr", top=3, seeds=0)
    assert retrieval.hits[0].found_by == "hybrid"
    assert retrieval.hits[0].title == "Big Stone Gap (film)"
    assert {hit.found_by for hit in retrieval.hits[1:]} == {"ppr"}


def test_after_the_links_the_walk_and_the_ranker_take_turns(tiny_graph):
    found = tiny_graph.search(BSG, method="hybrid+names+links+ppr", top=5, seeds=0)
    assert [hit.found_by for hit in found.hits] == ["name", "link", "link", "ppr", "hybrid"]
    assert found.hits[3].title == "Greenwich Village"  # the walk's best: two links from the film
    alone = tiny_graph.search(BSG, method="ppr", top=5, seeds=0)  # alone, the walk keeps its places
    assert [hit.found_by for hit in alone.hits][:4] == ["name", "ppr", "ppr", "ppr"]


def test_budget_rejects_impossible_walks():
    for bad in ({"ppr_damping": 1.0}, {"ppr_damping": -0.1}, {"ppr_iterations": 0}, {"ppr_hit_weight": -1},
                {"ppr_hops": 0}):
        with pytest.raises(InputError):
            Budget(**bad)
    assert "≤ 4 hops" in Budget().describe()


NAMESAKES = [
    Document("Dana Hall (publisher)", "Dana Hall founded the Harbor Gazette, a weekly magazine.", "hall"),
    Document("Dana Hall (footballer)", "Dana Hall played as a striker for Kiel.", "hall"),
    Document("Dana Hall (singer)", "Dana Hall sang folk songs.", "hall"),
    Document("Harbor Gazette", "The Harbor Gazette is a weekly magazine edited by Ivo Brant.", "hall"),
    Document("Ivo Brant", "Ivo Brant was a journalist from Bremen.", "hall"),
    Document("Weekly magazine", "A weekly magazine appears once a week.", "hall"),
]


def test_with_ppr_a_name_the_question_says_brings_in_one_namesake_not_all(tmp_path):
    hg = HopGraph(str(tmp_path / "hall.db"), Settings(), embedder=BagOfWordsEmbedder())
    hg.index_documents(NAMESAKES)
    question = "What magazine did Dana Hall found?"
    namesake_links = lambda r: [h.title for h in r.hits if h.found_by == "link" and h.title.startswith("Dana")]  # noqa: E731
    plain = hg.search(question, method="hybrid+names+links", top=4, seeds=1)
    assert len(namesake_links(plain)) == 2  # both other Dana Halls take places
    walked = hg.search(question, method="hybrid+names+links+ppr", top=4, seeds=1)
    assert len(namesake_links(walked)) == 1
    assert "Harbor Gazette" in titles(walked)
    hg.close()
