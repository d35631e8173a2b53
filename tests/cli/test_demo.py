"""The demo: the bundled sample, and finding a two-hop question that links rescue."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.cli.demo import BASE, GRAPH, answer_in, find_rescue, sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval import Question, load_questions
from hopgraph.records.documents import Document

# The architect's paragraph holds the answer and shares no word with the question: plain search
# (top 2) misses it, names + links reach it from the bridge the question names.
CORPUS_QUESTION = "Which city is the architect of Marlowe Bridge from?"
CORPUS = [
    ("Marlowe Bridge", "Marlowe Bridge is the oldest bridge of the city; its architect was Tobias Quell."),
    ("Tobias Quell (architect)", "Tobias Quell grew up near Ostrava."),
    ("Bridge architecture", "Bridge architecture studies arches, spans and loads."),
    ("City architect", "A city architect designs public buildings."),
    ("Covered bridge", "A covered bridge has a roof and walls."),
]
GOLD = frozenset({"Marlowe Bridge", "Tobias Quell (architect)"})
RESCUED = Question("rescued", CORPUS_QUESTION, "Ostrava", "bridge", GOLD)


@pytest.fixture
def bridge_graph(tmp_path: Path) -> HopGraph:
    hg = HopGraph(str(tmp_path / "demo.db"), Settings(top=2, seeds=1), embedder=BagOfWordsEmbedder())
    hg.index_documents([Document(title, text, "demo") for title, text in CORPUS])
    yield hg
    hg.close()


def test_answer_in_says_whether_the_answer_is_in_the_retrieved_text(bridge_graph):
    assert answer_in(bridge_graph, RESCUED, GRAPH) is True
    assert answer_in(bridge_graph, RESCUED, BASE) is False


def test_find_rescue_returns_the_bridge_question_links_rescue(bridge_graph):
    plain = Question("plain", "What does a city architect design?", "public buildings", "bridge", GOLD)
    assert find_rescue(bridge_graph, [plain, RESCUED]) == RESCUED


def test_find_rescue_ignores_questions_that_are_not_bridge_questions(bridge_graph):
    comparison = Question("c", CORPUS_QUESTION, "Ostrava", "comparison", GOLD)
    assert find_rescue(bridge_graph, [comparison]) is None


def test_find_rescue_ignores_questions_plain_search_already_answers(bridge_graph):
    plain = Question("plain", "What does a city architect design?", "public buildings", "bridge", GOLD)
    unanswerable = Question("none", CORPUS_QUESTION, "Prague", "bridge", GOLD)
    assert find_rescue(bridge_graph, [plain, unanswerable]) is None


def test_the_bundled_sample_is_200_hotpotqa_questions():
    questions, records, _ = load_questions(sample_path())
    assert len(questions) == len(records) == 200
    assert {q.type for q in questions} == {"bridge", "comparison"}
    assert all(len(q.gold_titles) == 2 for q in questions)


# --- on the bundled sample with the real embedder --------------------------------------------------



@pytest.mark.slow
def test_find_rescue_on_the_sample_finds_a_bridge_question_only_links_answer(hotpot_e2e):
    data, store, _ = hotpot_e2e
    questions, _, _ = load_questions(data)
    with HopGraph(str(store), Settings()) as hg:
        rescued = find_rescue(hg, questions)
        assert rescued is not None and rescued in questions
        assert rescued.type == "bridge"
        plain = " ".join(hit.text for hit in hg.search(rescued.text, method="hybrid").hits).lower()
        graph_hits = hg.search(rescued.text, method="hybrid+names+links").hits
    assert rescued.answer.lower() not in plain
    assert rescued.answer.lower() in " ".join(hit.text for hit in graph_hits).lower()
    assert any(hit.found_by in ("link", "name") and rescued.answer.lower() in hit.text.lower() for hit in graph_hits)


@pytest.mark.slow
def test_the_book_gets_a_community_tree_and_a_cited_answer_about_its_themes(tmp_path):
    from hopgraph.cli.demo import THEMES, book_path, community_story

    lines: list[str] = []
    with HopGraph(str(tmp_path / "carol.db"), Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.index([book_path()])
        community_story(hg, lines.append)
        chunk_ids = {int(c) for c in hg.search_index.table.ids}
    text = "\n".join(lines)
    assert "communities in" in text and "level 1:" in text  # a tree, not one flat partition
    assert THEMES in text and "mode: global (router: global" in text
    cited = [int(c) for c in text.split("Citations: ")[1].replace("chunk ", "").split(", ")]
    assert cited and set(cited) <= chunk_ids


def test_the_book_indexed_from_another_install_is_withdrawn_not_doubled(tmp_path):
    from hopgraph.cli.demo import index_book

    text = "Marley was dead: to begin with. Scrooge signed the register of his burial.\n\nScrooge knew he was dead."
    old, new = tmp_path / "old" / "carol.txt", tmp_path / "new" / "carol.txt"
    for path in (old, new):
        path.parent.mkdir()
        path.write_text(text)
    with HopGraph(str(tmp_path / "carol.db"), Settings(), embedder=BagOfWordsEmbedder(), quiet=True) as hg:
        index_book(hg, old)
        index_book(hg, new)  # another checkout: the same book at another path
        assert [doc.source for doc in hg.store.active_documents().values()] == [str(new)]
        assert len({hit.text for hit in hg.search("Marley dead", method="bm25").hits}) == len(
            hg.search("Marley dead", method="bm25").hits)  # no hit twice
