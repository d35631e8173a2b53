"""DRIFT search: the primer over the most relevant reports, follow-ups answered by local search (a
fake one here, the real one through the engine), rounds and budgets, offline and against a scripted
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scripted_chat import USAGE, scripted_chat
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.llm import LLMClient
from hopgraph.prompts import drift as prompt
from hopgraph.query.drift import DriftBudget, best_sentence, drift_search, key_entities
from hopgraph.query.local import LocalResult
from hopgraph.records.communities import CommunityReport, Finding
from hopgraph.records.documents import Document
from hopgraph.records.retrieval import Hit, Retrieval


def report(community_id: int, title: str, entities: list[str], rating: float, words: str) -> CommunityReport:
    findings = [Finding(f"{title} finding {n}: {words}.", chunk_ids=[10 * community_id + n]) for n in range(2)]
    return CommunityReport(community_id, 0, title, f"About {words}.", rating, entities, [], findings)


REPORTS = [
    report(1, "Marley's Ghost", ["Marley", "chains", "Scrooge"], 8.0, "the ghost of Marley drags chains"),
    report(2, "The Cratchits", ["Bob Cratchit", "the pudding", "Tiny Tim"], 6.0, "Bob Cratchit and Tiny Tim at dinner"),
    report(3, "The counting-house", ["the ledger", "Scrooge", "coal"], 2.0, "the ledger and the coal-box"),
]
QUESTION = "How does the ghost of Marley change Scrooge?"


class FakeLocal:
    """Local search stand-in: every question gets two hits whose chunk ids depend on the call number."""

    def __init__(self) -> None:
        self.questions: list[str] = []

    def __call__(self, question: str) -> LocalResult:
        self.questions.append(question)
        base = 100 * len(self.questions)
        name = re.sub(r"^What about |\?$", "", question)
        hits = [Hit(base + k, 1, "Carol", f"Nothing here. {name} is in sentence {k} of this chunk. The end.",
                    1.0 / (k + 1), "graph") for k in range(2)]
        return LocalResult(Retrieval("local", hits), [], [])


# --- offline ----------------------------------------------------------------------------------------


def test_key_entities_round_robin_names_first_and_skip_the_question() -> None:
    # Marley and Scrooge are in the question; "the ledger" is a noun phrase, not a name.
    assert key_entities(REPORTS, QUESTION) == [("Bob Cratchit", 1), ("Tiny Tim", 1), ("the ledger", 2),
                                               ("chains", 0), ("the pudding", 1), ("coal", 2)]


def test_offline_drift_asks_the_key_entities_and_ranks_the_evidence() -> None:
    local = FakeLocal()
    result = drift_search(QUESTION, REPORTS, local, DriftBudget(primer_reports=2, followups=2),
                          embedder=BagOfWordsEmbedder())
    assert result.extractive and result.answer.startswith("Extractive DRIFT answer")
    assert local.questions == ["What about Bob Cratchit?", "What about Tiny Tim?"]
    assert [f.question for f in result.followups] == local.questions and all(f.depth == 1 for f in result.followups)
    # The primer is the top reports' findings: Marley's Ghost first (closest, most important).
    assert "Marley's Ghost finding 0" in result.draft and "counting-house" not in result.draft
    assert result.citations == [10, 11, 20, 21, 100, 101, 200, 201]
    assert '"Bob Cratchit is in sentence 0 of this chunk." [chunk 100]' in result.answer
    used = result.used
    assert (used["llm_calls"], used["local_searches"], used["chunks_read"], used["primer_reports"]) == (0, 2, 4, 2)


def test_offline_depth_asks_the_next_entities_in_the_next_round() -> None:
    local = FakeLocal()
    result = drift_search(QUESTION, REPORTS, local, DriftBudget(primer_reports=2, followups=2, depth=2),
                          embedder=BagOfWordsEmbedder())
    assert [f.depth for f in result.followups] == [1, 1, 2, 2] and len(set(local.questions)) == 4
    assert result.used["rounds"] == 2


def test_the_primer_skips_a_report_that_repeats_a_chosen_one() -> None:
    child = report(4, "Marley's Ghost (detail)", ["Marley"], 8.0, "the ghost of Marley drags chains")
    child.findings = REPORTS[0].findings  # a sub-community whose best findings are its parent's
    result = drift_search(QUESTION, [*REPORTS, child], FakeLocal(), DriftBudget(primer_reports=2, followups=0),
                          embedder=BagOfWordsEmbedder())
    assert "The Cratchits finding 0" in result.draft and "(detail)" not in result.draft


def test_best_sentence_reads_across_hard_wrapped_lines() -> None:
    text = "It was cold.\nMarley was dead, to begin\nwith, there is no doubt whatever about that. Bah!"
    assert best_sentence(text, ["Marley"]) == "Marley was dead, to begin with, there is no doubt whatever about that."


# --- with an LLM ---------------------------------------------------------------------------------------

PRIMER = {"answer": "Marley's ghost warns Scrooge.", "citations": [10, 999],
          "followups": [{"question": "What do the chains mean?", "score": 80},
                        {"question": "Who is Tiny Tim?", "score": 50},
                        {"question": "Is the ledger relevant?", "score": 0},
                        {"question": "What does Scrooge fear?", "score": 70}]}
FINAL = {"answer": "Scrooge changes after the warnings.", "citations": [10, 100, 201, 777]}


def followup_reply(user: str) -> dict[str, Any]:
    chunks = [int(c) for c in re.findall(r"\[chunk (\d+)\]", user)]
    raised = [{"question": "Why does Marley wear chains?", "score": 90}] if "chains mean" in user else []
    return {"answer": f"Answered from {chunks}.", "citations": [*chunks[:1], 4242], "followups": raised}


def respond(body: dict[str, Any]) -> tuple[int, Any]:
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system == prompt.PRIMER:
        return 200, PRIMER
    if system == prompt.FOLLOWUP:
        return (401, "refused") if "Tiny Tim" in user else (200, followup_reply(user))
    assert system == prompt.FINAL
    return 200, FINAL


@pytest.fixture
def chat() -> Iterator[Any]:
    with scripted_chat(respond) as server:
        yield server


def test_drift_with_an_llm_follows_up_by_score_in_rounds_and_cites_its_evidence(chat: Any) -> None:
    local = FakeLocal()
    with LLMClient(chat.url, "scripted", max_retries=0, timeout=10.0) as client:
        result = drift_search(QUESTION, REPORTS, local, DriftBudget(primer_reports=2, followups=2, depth=3),
                              client, BagOfWordsEmbedder())
    # Round 1: the two best primer questions; round 2: the raised one (90) before the primer's 50; round 3
    # would be left with the question scored 0, which is never asked.
    assert local.questions == ["What do the chains mean?", "What does Scrooge fear?",
                               "Why does Marley wear chains?", "Who is Tiny Tim?"]
    assert [f.depth for f in result.followups] == [1, 1, 2, 1]
    [primer_input] = chat.user_messages(prompt.PRIMER)
    assert "[report 1]" in primer_input and "[report 3]" not in primer_input  # the two most relevant reports
    chains = result.followups[0]
    assert chains.answer == "Answered from [100, 101]." and chains.citations == [100]  # 4242 is not evidence
    assert result.followups[3].answer == "" and result.used["failed_followup"] == 1  # counted, not fatal
    [final_input] = chat.user_messages(prompt.FINAL)
    assert "Marley's ghost warns Scrooge. [chunks 10]" in final_input  # 999 dropped from the draft
    order = [final_input.index(q) for q in ("Why does Marley wear chains?", "What do the chains mean?",
                                            "What does Scrooge fear?")]
    assert order == sorted(order) and "Tiny Tim" not in final_input  # by score; unanswered left out
    assert result.answer == FINAL["answer"] and result.citations == [10, 100]  # 201, 777 were not in the final input
    used = result.used
    assert (used["llm_calls"], used["primer_calls"], used["followup_calls"], used["final_calls"]) == (5, 1, 3, 1)
    assert used["tokens_in"] == 5 * USAGE["prompt_tokens"] and used["local_searches"] == 4
    assert used["dropped_citations"] == 1 + 3 + 2  # 999; 4242 three times; 201 and 777
    assert not result.extractive and result.mode == "llm:scripted" and used["rounds"] == 2


# --- through the engine ------------------------------------------------------------------------------------

DOCS = [
    Document("Honey bees", "Honey bees live in colonies ruled by the Queen Bee. Worker bees collect nectar and turn "
             "it into honey inside the Langstroth hive. Beekeepers in Vermont tend the Langstroth hive.", "bees"),
    Document("Beekeeping", "Beekeepers harvest honey from the Langstroth hive in late summer. The Queen Bee lays eggs "
             "while worker bees guard the honeycomb. The Vermont Beekeepers Association teaches beekeeping.", "bees"),
    Document("Mount Etna", "Mount Etna is an active volcano in Sicily. Its eruptions pour lava towards Catania, and "
             "volcanic ash closes Catania Airport.", "volcanoes"),
    Document("Volcanology", "Volcanologists at the Etna Observatory measure magma beneath Mount Etna. The Etna "
             "Observatory warns Catania when lava flows threaten the city.", "volcanoes"),
]


@pytest.fixture(scope="module")
def topics_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("drift") / "topics.db"
    with HopGraph(str(path), Settings(community_max_size=4), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents(DOCS)
        hg.extract_concepts()
    return path


def test_engine_drift_and_global_search_offline_cite_chunks_of_the_store(topics_store: Path, tmp_path: Path) -> None:
    shutil.copy(topics_store, tmp_path / "t.db")
    with HopGraph(str(tmp_path / "t.db"), Settings(community_max_size=4), embedder=BagOfWordsEmbedder()) as hg:
        chunk_ids = {int(c) for c in hg.search_index.table.ids}
        drift = hg.drift("How do beekeepers harvest honey?")
        assert drift.extractive and drift.citations and set(drift.citations) <= chunk_ids
        assert drift.followups and all(f.evidence for f in drift.followups)
        assert drift.used["local_searches"] == len(drift.followups) <= Settings().drift_followups
        found = hg.global_search("How do beekeepers harvest honey?")
        assert found.mode == "extractive" and set(found.citations) <= chunk_ids
        assert "Beekeepers" in found.answer.splitlines()[1]  # the bee community first
