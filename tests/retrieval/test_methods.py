"""Retrieval methods: parsing, question checks, and the budget rule (names, then links, then fill)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.query.question import check_question
from hopgraph.records.documents import Document
from hopgraph.records.retrieval import Budget
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.methods import METHODS, MethodSpec, parse_method, run_method

# A two-hop world for the bag-of-words embedder. The question below names "Marlowe Bridge"; the
# bridge's paragraph names its architect, whose paragraph shares no word with the question, so only a
# link can bring it in. "Edda Voss" is a second link target that shares one word ("bridge").
QUESTION = "Which city is the architect of Marlowe Bridge from?"
BRIDGE_CORPUS = [
    Document("Marlowe Bridge", "Marlowe Bridge is the oldest bridge of the city; its architect was Tobias Quell "
             "and its builder Edda Voss.", "bridge"),
    Document("Tobias Quell (architect)", "Tobias Quell grew up near Ostrava.", "bridge"),
    Document("Edda Voss", "Edda Voss was an engineer who led bridge works for a decade.", "bridge"),
    Document("Bridge architecture", "Bridge architecture studies arches, spans and loads.", "bridge"),
    Document("City architect", "A city architect designs public buildings.", "bridge"),
    Document("Covered bridge", "A covered bridge has a roof and walls.", "bridge"),
    Document("Quell Prize", "An award given each spring to young designers.", "bridge"),
]
# The same world with a single link out of the bridge (to the architect).
ONE_LINK_CORPUS = [d for d in BRIDGE_CORPUS if d.title != "Edda Voss"]

# Two films compared: each links to the people it names, for the breadth-first rule across seeds.
FILM_QUESTION = "Which film came out first, Harbor Lights or Winter Orchard?"
FILM_CORPUS = [
    Document("Harbor Lights (film)", "Harbor Lights is a film that came out in 1950, directed by Oskar Brandt "
             "and scored by Lena Morrow.", "films"),
    Document("Winter Orchard (film)", "Winter Orchard is a film that came out in 1952, directed by Ruth Kessler.",
             "films"),
    Document("Oskar Brandt", "Oskar Brandt was born in Kiel.", "films"),
    Document("Lena Morrow", "Lena Morrow wrote music for the stage.", "films"),
    Document("Ruth Kessler", "Ruth Kessler was born in Graz.", "films"),
    Document("Silent film", "A silent film has no synchronized recorded sound.", "films"),
    Document("Film release", "A release date is set by a studio.", "films"),
]


@pytest.fixture
def make_index(tmp_path: Path) -> Callable[[Sequence[Document]], SearchIndex]:
    graphs: list[HopGraph] = []

    def build(docs: Sequence[Document]) -> SearchIndex:
        # Titles are the names here, as in the titled QA sets: the method mechanics are what is tested.
        hg = HopGraph(str(tmp_path / f"methods{len(graphs)}.db"), Settings(names_from="titles"),
                      embedder=BagOfWordsEmbedder())
        graphs.append(hg)
        hg.index_documents(docs)
        return hg.search_index

    yield build
    for hg in graphs:
        hg.close()


@pytest.fixture
def bridge(make_index) -> SearchIndex:
    return make_index(BRIDGE_CORPUS)


def titles(retrieval) -> list[str]:
    return [hit.title for hit in retrieval.hits]


# --- parse_method ----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_parse_method_accepts_every_listed_method_as_its_composition(method):
    parts = method.split("+")
    assert parse_method(method) == MethodSpec(parts[0], "names" in parts, "links" in parts)


def test_parse_method_accepts_other_compositions_case_and_spaces_aside():
    assert parse_method("bm25+links") == MethodSpec("bm25", False, True)
    assert parse_method("vector+names") == MethodSpec("vector", True, False)
    assert parse_method(" Hybrid+Links ") == MethodSpec("hybrid", False, True)


@pytest.mark.parametrize("method", ["foo", "hybrid+bar", "hybrid+links+links", "links", "", "+links", "hybrid+"])
def test_parse_method_rejects_unknown_methods_listing_the_valid_ones(method):
    with pytest.raises(InputError) as caught:
        parse_method(method)
    message = str(caught.value)
    assert repr(method) in message
    assert all(valid in message for valid in METHODS)


def test_run_method_checks_its_method(bridge):
    # the question is checked once, above (query/question.py): the facade's tests cover that
    with pytest.raises(InputError, match="unknown method"):
        run_method(bridge, QUESTION, "hybrid+bar", Budget())


# --- the budget rule -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", [*METHODS, "bm25+links", "vector+names", "bm25+names+links"])
@pytest.mark.parametrize(("top", "seeds"), [(1, 0), (1, 3), (2, 1), (3, 1), (3, 3), (5, 2), (20, 5)])
def test_every_method_fills_top_places_at_most_with_distinct_chunks(bridge, method, top, seeds):
    for question in (QUESTION, "Which bridge architect won the Quell Prize?", "Who was Edda Voss?"):
        hits = run_method(bridge, question, method, Budget(top=top, seeds=seeds)).hits
        assert len(hits) == min(top, len(bridge))
        assert len({hit.chunk_id for hit in hits}) == len(hits)


@pytest.mark.parametrize("ranker", ["vector", "bm25", "hybrid"])
def test_ranker_hits_are_found_by_the_ranker_best_score_first(bridge, ranker):
    hits = run_method(bridge, QUESTION, ranker, Budget(top=5)).hits
    assert {hit.found_by for hit in hits} == {ranker}
    assert [hit.stage_score for hit in hits] == sorted((hit.stage_score for hit in hits), reverse=True)


def test_links_bring_in_a_paragraph_sharing_no_word_with_the_question(make_index):
    index = make_index(ONE_LINK_CORPUS)
    budget = Budget(top=2, seeds=1)
    plain = run_method(index, QUESTION, "hybrid", budget)
    linked = run_method(index, QUESTION, "hybrid+links", budget)
    assert "Tobias Quell (architect)" not in titles(plain)
    assert titles(linked) == ["Marlowe Bridge", "Tobias Quell (architect)"]
    assert [hit.found_by for hit in linked.hits] == ["hybrid", "link"]


def test_the_first_seeds_hits_are_ranker_hits_and_links_take_the_next_places(make_index):
    index = make_index(ONE_LINK_CORPUS)
    plain = run_method(index, QUESTION, "hybrid", Budget(top=2, seeds=1))
    linked = run_method(index, QUESTION, "hybrid+links", Budget(top=2, seeds=1))
    # The ranker's own second choice is pushed out although it scores higher than the linked chunk.
    ranker_second = plain.hits[1]
    assert linked.hits[0].chunk_id == plain.hits[0].chunk_id
    assert ranker_second.chunk_id not in {hit.chunk_id for hit in linked.hits}
    assert linked.hits[1].stage_score < ranker_second.stage_score


def test_links_precede_the_ranker_fill_but_leave_it_the_remaining_places(make_index):
    index = make_index(ONE_LINK_CORPUS)
    plain = run_method(index, QUESTION, "hybrid", Budget(top=4, seeds=1))
    linked = run_method(index, QUESTION, "hybrid+links", Budget(top=4, seeds=1))
    assert [hit.found_by for hit in linked.hits] == ["hybrid", "link", "hybrid", "hybrid"]
    assert titles(linked)[2:] == titles(plain)[1:3]


def test_a_seed_links_are_placed_best_ranker_score_first(bridge):
    linked = run_method(bridge, QUESTION, "hybrid+links", Budget(top=3, seeds=1))
    assert titles(linked) == ["Marlowe Bridge", "Edda Voss", "Tobias Quell (architect)"]
    assert linked.hits[1].stage_score > linked.hits[2].stage_score
    with_two = run_method(bridge, QUESTION, "hybrid+links", Budget(top=2, seeds=1))
    assert titles(with_two) == ["Marlowe Bridge", "Edda Voss"]


def test_with_zero_seeds_links_add_nothing(bridge):
    budget = Budget(top=3, seeds=0)
    assert titles(run_method(bridge, QUESTION, "hybrid+links", budget)) == titles(
        run_method(bridge, QUESTION, "hybrid", budget))


def test_links_are_followed_only_from_the_first_seeds_hits(make_index):
    index = make_index(FILM_CORPUS)
    plain = run_method(index, FILM_QUESTION, "hybrid", Budget(top=2))
    assert set(titles(plain)) == {"Harbor Lights (film)", "Winter Orchard (film)"}  # both films rank first
    linked = run_method(index, FILM_QUESTION, "hybrid+links", Budget(top=4, seeds=1))
    seed = linked.hits[0]
    assert {hit.via.from_title for hit in linked.hits if hit.found_by == "link"} == {seed.title}


def test_links_are_placed_breadth_first_across_seeds(make_index):
    index = make_index(FILM_CORPUS)
    linked = run_method(index, FILM_QUESTION, "hybrid+links", Budget(top=4, seeds=2))
    assert [hit.found_by for hit in linked.hits] == ["hybrid", "hybrid", "link", "link"]
    # Harbor Lights links to two people, Winter Orchard to one: each film gets one before either gets two.
    assert {hit.via.from_title for hit in linked.hits[2:]} == {"Harbor Lights (film)", "Winter Orchard (film)"}


def test_a_link_hit_says_which_seed_and_which_name_brought_it(make_index):
    index = make_index(ONE_LINK_CORPUS)
    seed, link = run_method(index, QUESTION, "hybrid+links", Budget(top=2, seeds=1)).hits
    assert link.found_by == "link"
    assert link.via is not None
    assert link.via.from_chunk == seed.chunk_id
    assert link.via.from_title == "Marlowe Bridge"
    assert link.via.name == "Tobias Quell"
    assert link.describe_path() == 'Marlowe Bridge → Tobias Quell (architect) via "Tobias Quell"'


def test_a_ranker_hit_describes_its_path_as_its_ranker(bridge):
    hit = run_method(bridge, QUESTION, "bm25", Budget(top=1)).hits[0]
    assert hit.via is None
    assert hit.describe_path() == "bm25"


# --- names -----------------------------------------------------------------------------------------


def test_a_document_named_in_the_question_comes_first(bridge):
    question = "Which bridge architect won the Quell Prize?"
    plain = run_method(bridge, question, "hybrid", Budget(top=3))
    assert "Quell Prize" not in titles(plain)
    named = run_method(bridge, question, "hybrid+names", Budget(top=3))
    first = named.hits[0]
    assert (first.title, first.found_by) == ("Quell Prize", "name")
    assert first.via is not None and first.via.name == "Quell Prize"  # as written, not case-folded
    assert [hit.found_by for hit in named.hits[1:]] == ["hybrid", "hybrid"]
    assert titles(named)[1:] == titles(plain)[:2]


def test_named_documents_come_best_ranker_score_first(bridge):
    question = "Did Edda Voss win the Quell Prize for a bridge?"
    named = run_method(bridge, question, "hybrid+names", Budget(top=4))
    assert [(hit.title, hit.found_by) for hit in named.hits[:2]] == [("Edda Voss", "name"), ("Quell Prize", "name")]
    assert named.hits[0].stage_score > named.hits[1].stage_score


def test_names_match_the_question_whatever_its_case(bridge):
    named = run_method(bridge, "who won the quell prize?", "hybrid+names", Budget(top=2))
    assert (named.hits[0].title, named.hits[0].found_by) == ("Quell Prize", "name")


def test_a_named_chunk_is_a_seed_for_links(bridge):
    # The ranker puts other chunks first; the question names the bridge, so its links are followed.
    question = "What spans and loads does the architecture of the Marlowe Bridge carry?"
    hits = run_method(bridge, question, "hybrid+names+links", Budget(top=3, seeds=1)).hits
    assert (hits[0].title, hits[0].found_by) == ("Marlowe Bridge", "name")
    assert [(hit.found_by, hit.via.from_title) for hit in hits[1:]] == [("link", "Marlowe Bridge")] * 2


# --- trace -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "stages"), [
    ("vector", ["embed question", "vector", "fill"]),
    ("bm25", ["bm25", "fill"]),
    ("hybrid", ["embed question", "vector", "bm25", "fuse", "fill"]),
    ("bm25+links", ["bm25", "links", "fill"]),
    ("hybrid+links", ["embed question", "vector", "bm25", "fuse", "links", "fill"]),
    ("hybrid+names+links", ["embed question", "vector", "bm25", "fuse", "names", "links", "fill"]),
])
def test_the_trace_has_one_timed_step_per_stage(bridge, method, stages):
    retrieval = run_method(bridge, QUESTION, method, Budget(top=3, seeds=1))
    assert [step.stage for step in retrieval.trace] == stages
    assert all(step.ms >= 0 for step in retrieval.trace)
    assert retrieval.ms == pytest.approx(sum(step.ms for step in retrieval.trace))
    assert retrieval.method == method


def test_the_names_step_says_which_names_it_found(bridge):
    retrieval = run_method(bridge, "Who won the Quell Prize?", "hybrid+names", Budget(top=3))
    (names_step,) = [step for step in retrieval.trace if step.stage == "names"]
    assert "quell prize" in names_step.detail.casefold()


@pytest.mark.parametrize("method", [*METHODS, "hybrid+names+links", "ppr"])
def test_every_method_scores_its_hits_monotone_in_rank(bridge, method):
    for question in (QUESTION, "Did Edda Voss win the Quell Prize for a bridge?"):
        hits = run_method(bridge, question, method, Budget(top=5, seeds=2)).hits
        assert [hit.score for hit in hits] == [1 / rank for rank in range(1, len(hits) + 1)]
        assert all(hit.stage_score is not None for hit in hits)


# --- property tests (hypothesis): any question is answered or refused with an InputError ------------

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402  (after the skip: a dev-only extra)
from hypothesis import strategies as st  # noqa: E402

QUESTION_EXAMPLES = 200
questions = st.one_of(
    st.text(max_size=300),  # any code point but lone surrogates
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "surrogateescape")),  # argv's undecodable bytes
    st.text(st.sampled_from(" \t\n\u200b\u200d\ufeff\x00\"'()*:^~-AND OR NOT NEAR"), max_size=60),  # FTS syntax
)


@settings(max_examples=QUESTION_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(question=questions, method=st.sampled_from(sorted(METHODS)))
def test_any_question_is_searched_or_refused_with_one_input_error(bridge, question: str, method: str) -> None:
    try:
        checked = check_question(question)
    except InputError as err:
        assert "\n" not in str(err)
        return
    assert checked and checked == checked.strip()
    retrieval = run_method(bridge, checked, method, Budget(top=3), 60)
    assert len(retrieval.hits) <= 3
