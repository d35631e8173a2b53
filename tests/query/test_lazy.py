"""Lazy global search: community ranking, the relevance-test budget, descent below passing communities
only, the LLM path against a scripted OpenAI-compatible server, and the themes question on the book."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fake_llm import FakeLLM, Reply, chat
from scipy import sparse
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.llm import LLMClient
from hopgraph.prompts import relevance
from hopgraph.query.lazy import LazyBudget, LazyResult, lazy_global_search, plan_level
from hopgraph.records.documents import Document

# Two topics that share no concept, so the concept graph splits them into separate communities.
BEES = [
    Document("Honey bees", "Honey bees live in colonies ruled by the Queen Bee. Worker bees collect nectar from "
             "flowers and turn the nectar into honey inside the Langstroth hive. Beekeepers in Vermont tend "
             "the Langstroth hive every spring.", "bees"),
    Document("Beekeeping", "Beekeepers harvest honey from the Langstroth hive in late summer. The Queen Bee lays "
             "eggs while worker bees guard the honeycomb. The Vermont Beekeepers Association teaches "
             "beekeeping to new beekeepers.", "bees"),
    Document("Pollination", "Worker bees pollinate apple orchards in Vermont. Beekeepers move the Langstroth hive "
             "to the orchards, and the honey from apple blossoms is light. The Vermont Beekeepers Association "
             "counts the colonies every year.", "bees"),
]
VOLCANOES = [
    Document("Mount Etna", "Mount Etna is an active volcano in Sicily. Its eruptions pour lava down the slopes "
             "towards Catania, and volcanic ash closes Catania Airport.", "volcanoes"),
    Document("Mount Vesuvius", "Mount Vesuvius buried Pompeii under volcanic ash in 79 AD. Pliny the Younger "
             "described the eruption of Mount Vesuvius from across the Bay of Naples.", "volcanoes"),
    Document("Volcanology", "Volcanologists at the Etna Observatory measure magma beneath Mount Etna. The Etna "
             "Observatory warns Catania when lava flows and volcanic ash threaten the city.", "volcanoes"),
]
QUESTION = "How do beekeepers harvest honey from the hive?"
SETTINGS = {"community_max_size": 4}  # small communities, so that the tree has levels to descend


@pytest.fixture(scope="module")
def topics_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both topics indexed with the bag-of-words embedder, concept graph and communities built."""
    path = tmp_path_factory.mktemp("lazy") / "topics.db"
    with HopGraph(str(path), Settings(**SETTINGS), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents(BEES + VOLCANOES)
        hg.extract_concepts()
        hg.communities()
    return path


@pytest.fixture
def topics(topics_store: Path, tmp_path: Path) -> Iterator[HopGraph]:
    copy = tmp_path / "topics.db"
    shutil.copy(topics_store, copy)  # every test gets its own file: LLM replies are cached in it
    with HopGraph(str(copy), Settings(**SETTINGS), embedder=BagOfWordsEmbedder()) as hg:
        yield hg


def titles(hg: HopGraph) -> dict[int, str]:
    """chunk id → document title."""
    index = hg.search_index
    return {int(c): index.title_of_row(row) for row, c in enumerate(index.table.ids)}


def topic_of(hg: HopGraph, chunk_ids: list[int]) -> set[str]:
    by_title = {d.title: d.source for d in BEES + VOLCANOES}
    return {by_title[titles(hg)[c]] for c in chunk_ids}


# --- offline ------------------------------------------------------------------------------------------


def test_the_relevant_topic_passes_and_the_other_does_not(topics: HopGraph) -> None:
    result = topics.lazy_global(QUESTION)
    tested_communities = {c for level in result.used["levels"] for c in level["visited"]}
    volcano_roots = {c.id for c in topics.communities().communities if c.level == 0
                     and topic_of(topics, sorted(_chunks(topics, c.id))) == {"volcanoes"}}
    assert volcano_roots & tested_communities, "the other topic was never even tested: the test proves nothing"
    passed = [h.chunk_id for h in result.retrieval.hits]
    assert topic_of(topics, passed) == {"bees"}
    assert len(passed) == 3  # every bee paragraph
    assert result.citations == passed and result.mode == "extractive"
    assert all(f"[chunk {c}]" in result.answer for c in passed)
    assert "Beekeepers harvest honey from the Langstroth hive" in result.answer  # the closest sentence
    assert result.used["llm_calls"] == 0 and result.used["tokens_in"] == 0


def _chunks(hg: HopGraph, community_id: int) -> set[int]:
    graph, community = hg.knowledge_graph, hg.communities().communities[community_id]
    return set().union(*(graph.entities[e].chunks for e in community.entities))


@pytest.mark.parametrize("tests", [1, 2, 3, 5])
def test_the_relevance_test_budget_is_never_exceeded(topics: HopGraph, tests: int) -> None:
    used = topics.lazy_global(QUESTION, LazyBudget(relevance_tests=tests, chunks_per_community=2)).used
    assert used["relevance_tests"] == sum(level["tests"] for level in used["levels"])
    # Six chunks in all: a budget below that is spent to the last test, never beyond.
    assert used["relevance_tests"] == tests and used["relevance_budget"] == tests


def test_no_chunk_is_tested_twice_even_with_budget_to_spare(topics: HopGraph) -> None:
    used = topics.lazy_global(QUESTION, LazyBudget(relevance_tests=100, max_depth=4)).used
    assert used["relevance_tests"] <= len(BEES + VOLCANOES)


def test_descent_goes_only_below_passing_communities(topics: HopGraph) -> None:
    tree = topics.communities()
    levels = topics.lazy_global(QUESTION, LazyBudget(chunks_per_community=1, communities_per_level=3)).used["levels"]
    assert len(levels) >= 2 and levels[1]["visited"], "no descent at all: the test proves nothing"
    for above, below in itertools.pairwise(levels):
        allowed = {child for c in above["passing"] for child in tree.communities[c].children}
        assert set(below["visited"]) <= allowed
        failed = set(above["visited"]) - set(above["passing"])
        assert not {child for c in failed for child in tree.communities[c].children} & set(below["visited"])
    assert all(tree.communities[c].level == 0 for c in levels[0]["visited"])


def test_communities_are_taken_by_their_best_untested_chunk() -> None:
    # A holds the three best chunks; B shares A's best and adds a weak one; C adds the second best.
    members = sparse.csr_matrix(np.array([[1, 1, 1, 0, 0], [1, 0, 0, 0, 1], [0, 1, 0, 1, 0]], dtype=float))
    scores = np.array([1.0, 0.9, 0.8, 0.3, 0.2])
    plan = plan_level(members, scores, [0, 1, 2], np.zeros(5, dtype=bool),
                      LazyBudget(communities_per_level=3, chunks_per_community=1), remaining=10)
    assert plan == [(0, [0]), (2, [1]), (1, [4])]
    plan = plan_level(members, scores, [0, 1, 2], np.zeros(5, dtype=bool),
                      LazyBudget(communities_per_level=3, chunks_per_community=2), remaining=3)
    assert plan == [(0, [0, 1]), (2, [3])]  # the third test is the last the budget allows


def test_a_budget_below_one_is_refused() -> None:
    with pytest.raises(InputError, match="relevance_tests"):
        LazyBudget(relevance_tests=0)


# --- the LLM path, against a scripted server ------------------------------------------------------------

RELEVANCE_USAGE = {"prompt_tokens": 120, "completion_tokens": 9}
ANSWER_USAGE = {"prompt_tokens": 700, "completion_tokens": 80}


class Script:
    """Relevance: 'Pollination' (bees, and similar to the question) is judged irrelevant, as is any
    volcano text; other chunks pass. Answer: cites every chunk in its prompt, plus the Pollination
    chunk it never saw — a citation the search must drop."""

    def __init__(self, rejected_chunk: int, fail_relevance: int = 0) -> None:
        self.rejected_chunk = rejected_chunk
        self.fail_relevance = fail_relevance  # answer this many relevance calls with HTTP 500
        self.lock = threading.Lock()

    def reply(self, request: dict[str, Any]) -> Reply:
        system, user = (m["content"] for m in request["body"]["messages"][:2])
        if system == relevance.SYSTEM:
            with self.lock:
                fail, self.fail_relevance = self.fail_relevance > 0, self.fail_relevance - 1
            if fail:
                return Reply(500, "scripted failure")
            no = "apple orchards" in user or "volcan" in user.lower()
            return chat(json.dumps({"relevant": not no, "score": 1 if no else 8}), RELEVANCE_USAGE)
        cited = [int(c) for c in re.findall(r"\[chunk (\d+)\]", user)] + [self.rejected_chunk]
        return chat(json.dumps({"answer": "Beekeepers harvest honey from the hive.", "citations": cited}),
                    ANSWER_USAGE)


def chunk_titled(hg: HopGraph, title: str) -> int:
    return next(c for c, t in titles(hg).items() if t == title)


def test_llm_verdicts_decide_what_is_cited_and_every_call_is_counted(
        topics: HopGraph, topics_store: Path, tmp_path: Path, fake: FakeLLM, server: tuple[FakeLLM, str]) -> None:
    script = Script(chunk_titled(topics, "Pollination"))
    fake.responder = script.reply
    shutil.copy(topics_store, tmp_path / "llm.db")
    with HopGraph(str(tmp_path / "llm.db"), Settings(**SETTINGS, llm_url=server[1], llm_model="scripted"),
                  embedder=BagOfWordsEmbedder()) as hg:
        result = hg.lazy_global(QUESTION, LazyBudget(relevance_tests=5))
    used, bodies = result.used, fake.bodies
    assert result.mode == "llm:scripted" and result.answer == "Beekeepers harvest honey from the hive."
    assert used["relevance_tests"] == 5 and used["failed_tests"] == 0
    assert used["llm_calls"] == used["relevance_tests"] + 1 == len(bodies)
    assert used["tokens_in"] == 5 * RELEVANCE_USAGE["prompt_tokens"] + ANSWER_USAGE["prompt_tokens"]
    assert used["tokens_out"] == 5 * RELEVANCE_USAGE["completion_tokens"] + ANSWER_USAGE["completion_tokens"]
    tested = [b["messages"][1]["content"] for b in bodies[:-1]]
    assert any("apple orchards" in t for t in tested), "Pollination was never tested: the test proves nothing"
    assert script.rejected_chunk not in result.citations
    assert script.rejected_chunk not in [h.chunk_id for h in result.retrieval.hits]
    assert f"[chunk {script.rejected_chunk}]" not in bodies[-1]["messages"][1]["content"]
    assert used["dropped_citations"] == 1
    assert result.citations and topic_of(topics, result.citations) == {"bees"}


def test_a_failed_relevance_call_is_spent_and_does_not_pass(
        topics: HopGraph, fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    fake.responder = Script(chunk_titled(topics, "Pollination"), fail_relevance=1).reply  # the first fails
    client = make_client(max_retries=0, max_concurrency=1)
    index, graph, tree = topics.search_index, topics.knowledge_graph, topics.communities()
    result: LazyResult = lazy_global_search(index, graph, tree, QUESTION, LazyBudget(relevance_tests=4), client)
    assert result.used["relevance_tests"] == 4 and result.used["failed_tests"] == 1
    assert result.used["llm_calls"] == 3 + 1  # three relevance replies and the answer; the failure bills nothing
    assert len(fake.bodies) == 4 + 1


# --- the book -----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_themes_question_on_the_book_cites_real_chunks_of_several_communities(tmp_path: Path) -> None:
    book = Path(str(resources.files("hopgraph.assets").joinpath("a_christmas_carol.txt")))
    with HopGraph(str(tmp_path / "book.db"), Settings()) as hg:
        hg.index([book])
        hg.extract_concepts()
        hg.communities()
        result = hg.lazy_global("What are the main themes of this story?")
        chunk_ids = set(hg.search_index.table.ids.tolist())
    assert result.citations and set(result.citations) <= chunk_ids
    by_chunk = {h.chunk_id: h.via.from_title for h in result.retrieval.hits if h.via}
    assert len({by_chunk[c] for c in result.citations}) >= 3
    assert result.used["relevance_tests"] <= result.used["relevance_budget"]
