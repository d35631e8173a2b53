"""Community reports: extractive (no model) and LLM-written bottom-up, against a real HTTP server."""

from __future__ import annotations

import json
from collections.abc import Callable

from fake_llm import FakeLLM, Reply, chat

from hopgraph.communities.leiden import community_hash
from hopgraph.communities.reports import estimate_report_tokens, extractive_reports, llm_reports
from hopgraph.llm import LLMClient
from hopgraph.records.communities import EXTRACTIVE, Community, CommunityTree
from hopgraph.records.knowledge import Entity, KnowledgeGraph, Relation, Source

CHUNKS = {
    1: "Scrooge was Marley's partner for many years. The fog came pouring in at every chink and keyhole.",
    2: "Marley was dead: to begin with. Scrooge signed the register of his burial, and Scrooge knew he was dead.",
    3: "Bob Cratchit carried Tiny Tim upon his shoulder. Tiny Tim sang a song about a lost child in the snow.",
    4: "Bob Cratchit worked in Scrooge's counting-house for fifteen shillings a week. Scrooge watched Bob closely.",
}


def world() -> tuple[KnowledgeGraph, CommunityTree]:
    entities = {1: Entity(1, "Scrooge", "PERSON", chunks={1, 2, 4}), 2: Entity(2, "Marley", "PERSON", chunks={1, 2}),
                3: Entity(3, "Bob Cratchit", "PERSON", chunks={3, 4}), 4: Entity(4, "Tiny Tim", "PERSON", chunks={3})}
    relations = [Relation(1, 1, "RELATED_TO", 2, sources=[Source(1, 1), Source(2, 1)]),
                 Relation(2, 3, "RELATED_TO", 4, sources=[Source(3, 2)]),
                 Relation(3, 1, "RELATED_TO", 3, sources=[Source(4, 2)])]
    graph = KnowledgeGraph(entities, relations)
    tree = CommunityTree([Community(0, 0, None, [1, 2, 3, 4], [1, 2]), Community(1, 1, 0, [1, 2]),
                          Community(2, 1, 0, [3, 4])])
    for community in tree.communities:
        community.hash = community_hash(graph, community.entities)
    return graph, tree


def texts(ids: set[int]) -> dict[int, str]:
    return {i: CHUNKS[i] for i in ids if i in CHUNKS}


def test_extractive_reports_centre_on_the_hub_and_cite_sentences_that_name_it() -> None:
    graph, tree = world()
    reports = {r.community_id: r for r in extractive_reports(graph, tree, texts)}
    top = reports[0]
    assert top.model == EXTRACTIVE and top.entities[0] == "Scrooge"  # the only entity tied to both pairs
    assert top.title.startswith("Scrooge")
    assert top.rating == 10.0 and reports[1].rating <= 10.0
    for finding in top.findings:
        [chunk_id] = finding.chunk_ids
        assert finding.summary in " ".join(CHUNKS[chunk_id].split())  # a sentence of the cited chunk
    assert len({f.summary for f in top.findings}) == len(top.findings)
    assert "fog came pouring" not in top.text()  # a sentence naming no entity of the community is no finding
    assert "Tiny Tim" in reports[2].text() and "Marley" not in reports[2].text()


def report_reply(title: str, chunk_ids: list[int], rating: float = 5.0) -> Reply:
    return chat(json.dumps({"title": title, "summary": f"About {title}.", "rating": rating,
                            "rating_explanation": "because", "findings": [
                                {"summary": f"{title} finding", "explanation": "stated", "chunk_ids": chunk_ids}]}),
                {"prompt_tokens": 300, "completion_tokens": 60})


def by_title(fake: FakeLLM) -> Callable[[dict], Reply]:
    def respond(request: dict) -> Reply:
        material = request["body"]["messages"][-1]["content"]
        if "# Scrooge and Marley" in material:  # the parent, written from its children's reports
            return report_reply("The whole story", [1, 3, 77])
        if "Marley" in material:
            return report_reply("Scrooge and Marley", [1, 2, 99])  # 99 is not in the material
        return report_reply("The Cratchits", [3])
    return respond


def test_llm_reports_go_bottom_up_and_an_overflowing_parent_reads_its_children(
        fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    graph, tree = world()
    fake.responder = by_title(fake)
    # 100 tokens cannot hold the parent's raw material (four chunks), so its children's reports stand in.
    run = llm_reports(graph, tree, make_client(), texts, budget_tokens=100)
    titles = {r.community_id: r.title for r in run.reports}
    assert titles == {0: "The whole story", 1: "Scrooge and Marley", 2: "The Cratchits"}
    materials = [b["messages"][-1]["content"] for b in fake.bodies]
    assert "# The Cratchits" in materials[-1] and "[chunk 4]\n" not in materials[-1]  # children, not chunks
    assert run.from_children == 1
    reports = {r.community_id: r for r in run.reports}
    assert reports[1].findings[0].chunk_ids == [1, 2]  # chunk 99 was never in the material: dropped
    assert reports[0].citations == [1, 3]  # 77 dropped too
    assert run.dropped_citations == 2
    assert all(r.model == "qwen-test" and r.hash for r in run.reports)


def test_a_failed_community_is_listed_and_the_rest_are_written(
        fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    graph, tree = world()
    respond = by_title(fake)
    fake.responder = lambda request: (Reply(body="{not json") if "Tiny Tim" in request["body"]["messages"][-1]
                                      ["content"] and "Marley" not in request["body"]["messages"][-1]["content"]
                                      else respond(request))
    run = llm_reports(graph, tree, make_client(max_retries=1), texts, budget_tokens=5000)
    assert [community_id for community_id, _ in run.failed] == [2]
    assert sorted(r.community_id for r in run.reports) == [0, 1]


def test_stored_reports_are_reused_by_hash_without_a_request(
        fake: FakeLLM, make_client: Callable[..., LLMClient]) -> None:
    graph, tree = world()
    fake.responder = by_title(fake)
    first = llm_reports(graph, tree, make_client(), texts, budget_tokens=5000)
    sent = len(fake.requests)
    for report in first.reports:
        report.labels = [f"label of {report.title}"]
    stored = {r.hash: r for r in first.reports}
    again = llm_reports(graph, tree, make_client(), texts, budget_tokens=5000, stored=stored)
    assert len(fake.requests) == sent and [r.title for r in again.reports] == [r.title for r in first.reports]
    assert [r.labels for r in again.reports] == [[f"label of {r.title}"] for r in first.reports]  # kept too


def test_estimate_counts_one_call_per_community_within_the_budget() -> None:
    graph, tree = world()
    small, large = (estimate_report_tokens(graph, tree, texts, budget_tokens=b) for b in (60, 5000))
    assert small["calls"] == large["calls"] == 3
    assert small["tokens_in"] < large["tokens_in"]
