"""Answers with citations: supporting sentences, chain rendering, extractive and replayed-LLM answers, and
`ask --mode local|paths` through the facade."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.llm import LLMClient, ReplayLLMCache, cache_key
from hopgraph.prompts import answer as answer_prompt
from hopgraph.query.writers import (
    chain_text,
    extractive_from_paths,
    extractive_from_relations,
    hop_evidence,
    llm_answer,
    supporting_sentence,
)
from hopgraph.records.documents import Document
from hopgraph.records.knowledge import Entity, Hop, KnowledgeGraph, Relation, Source

MODEL = "qwen-replay"

# --- supporting sentences and chains -----------------------------------------------------------------


def test_supporting_sentence_picks_the_sentence_naming_both_ends():
    text = ("Anvaya Foundry was founded in 1998. Corvane Brake Systems is based in Pune. "
            "Since 2021 Anvaya Foundry has shipped castings to Corvane Brake Systems! It employs 400 people.")
    assert supporting_sentence(text, ["Anvaya Foundry", "Corvane Brake Systems"]) == (
        "Since 2021 Anvaya Foundry has shipped castings to Corvane Brake Systems!")


def test_supporting_sentence_ignores_case_and_prefers_the_first_on_a_tie():
    text = "ANVAYA FOUNDRY is in Hosur.\nAnvaya Foundry makes castings."
    assert supporting_sentence(text, ["anvaya foundry"]) == "ANVAYA FOUNDRY is in Hosur."


def test_supporting_sentence_of_empty_text_is_empty():
    assert supporting_sentence("   ", ["A"]) == ""


A_SUPPLIES_B = Hop("Anvaya", "SUPPLIES", "Corvane", 11, 1)
B_SUPPLIES_C = Hop("Corvane", "SUPPLIES", "Zephyra", 22, 2)
A_IN_HOSUR = Hop("Anvaya", "LOCATED_IN", "Hosur", 33, 3)


def test_chain_text_renders_forward_hops_as_arrows():
    assert chain_text([A_SUPPLIES_B, B_SUPPLIES_C]) == "Anvaya —SUPPLIES→ Corvane —SUPPLIES→ Zephyra"


def test_chain_text_renders_a_hop_walked_against_its_edge_reversed():
    # A "depends on Hosur" path: Corvane ← its supplier Anvaya, which is located in Hosur.
    assert chain_text([A_SUPPLIES_B, A_IN_HOSUR]) == "Corvane ←SUPPLIES— Anvaya —LOCATED_IN→ Hosur"


def test_chain_text_of_one_hop_and_of_nothing():
    assert chain_text([A_IN_HOSUR]) == "Anvaya —LOCATED_IN→ Hosur"
    assert chain_text([]) == ""


# --- extractive answers ------------------------------------------------------------------------------

TEXTS = {11: "Anvaya is a foundry. Anvaya supplies castings to Corvane.",
         22: "Corvane supplies Zephyra with calipers. Zephyra makes cars.",
         33: "Anvaya's plant is in Hosur."}


def test_extractive_from_paths_cites_each_hops_chunk_once_in_order():
    answer = extractive_from_paths([[A_SUPPLIES_B, B_SUPPLIES_C], [A_SUPPLIES_B, A_IN_HOSUR]], TEXTS)
    assert answer.citations == [11, 22, 33]
    assert answer.mode == "extractive"
    lines = answer.text.splitlines()
    assert lines[0] == "1. Anvaya —SUPPLIES→ Corvane —SUPPLIES→ Zephyra"
    assert '[chunk 11]: "Anvaya supplies castings to Corvane."' in lines[1]
    assert '[chunk 22]: "Corvane supplies Zephyra with calipers."' in lines[2]
    assert lines[3] == "2. Corvane ←SUPPLIES— Anvaya —LOCATED_IN→ Hosur"


def test_extractive_from_no_paths_says_so_and_cites_nothing():
    answer = extractive_from_paths([], TEXTS)
    assert answer.citations == [] and "No path" in answer.text


def test_hop_evidence_finds_the_sentence_by_an_alias_of_an_end():
    graph = KnowledgeGraph({1: Entity(1, "Anvaya Foundry", "ORG", aliases=["AF Castings"]),
                            2: Entity(2, "Corvane", "ORG")})
    hop = Hop("Anvaya Foundry", "SUPPLIES", "Corvane", 5, 1)
    text = "AF Castings was founded in 1998. AF Castings ships to Corvane."
    assert hop_evidence(hop, {5: text}, graph).endswith('"AF Castings ships to Corvane."')


def test_extractive_from_relations_cites_the_lowest_source_chunk_of_each_relation():
    graph = KnowledgeGraph({1: Entity(1, "Anvaya", "ORG"), 2: Entity(2, "Corvane", "ORG")},
                           [Relation(1, 1, "SUPPLIES", 2, sources=[Source(22, 2), Source(11, 1)])])
    answer = extractive_from_relations(graph, graph.relations, TEXTS)
    assert answer.citations == [11]
    assert answer.text.startswith("Anvaya —SUPPLIES→ Corvane  [chunk 11]")
    assert extractive_from_relations(graph, [], TEXTS).citations == []


# --- LLM answers, replayed ---------------------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A local port that never answers: a request reaching it would be seen (and would time out)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        server.setblocking(False)
        yield server


def no_connection(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return True
    return False


def replayed_client(listener: socket.socket, question: str, chains: list[str], texts: dict[int, str],
                    answer: str, citations: list[int]) -> LLMClient:
    cache = ReplayLLMCache(strict=True)
    key = cache_key(MODEL, answer_prompt.messages(question, chains, texts), answer_prompt.Answer.__name__, 800, 0.0)
    cache.put(key, MODEL, json.dumps({"answer": answer, "citations": citations}), 300, 30)
    return LLMClient(f"http://127.0.0.1:{listener.getsockname()[1]}/v1", MODEL, cache=cache, max_retries=0,
                     timeout=1.0)


def test_llm_answer_returns_the_replayed_answer_and_its_citations(listener):
    chains = [chain_text([A_SUPPLIES_B, B_SUPPLIES_C])]
    evidence = {11: TEXTS[11], 22: TEXTS[22]}
    with replayed_client(listener, "Who supplies Zephyra?", chains, evidence, "Corvane, supplied by Anvaya.",
                         [22, 11, 22]) as client:
        answer = llm_answer(client, "Who supplies Zephyra?", chains, evidence)
    assert answer.text == "Corvane, supplied by Anvaya."
    assert answer.citations == [22, 11]
    assert answer.mode == f"llm:{MODEL}"
    assert no_connection(listener)


def test_llm_answer_citing_a_chunk_outside_the_evidence_drops_and_counts_it(listener):
    chains = [chain_text([A_SUPPLIES_B])]
    evidence = {11: TEXTS[11]}
    with replayed_client(listener, "Who supplies Corvane?", chains, evidence, "Anvaya.", [11, 99, 98]) as client:
        answer = llm_answer(client, "Who supplies Corvane?", chains, evidence)
    assert (answer.text, answer.citations, answer.dropped) == ("Anvaya.", [11], 2)


# --- graph answers through the facade ----------------------------------------------------------------

DOCS = [
    Document("Anvaya profile", "Anvaya Foundry runs a grey-iron plant in Hosur.", "kg"),
    Document("Supply agreement", "Since 2021 Anvaya Foundry supplies castings to Corvane Brake Systems.", "kg"),
    Document("Zephyra contract", "Corvane Brake Systems supplies calipers to Zephyra Motors.", "kg"),
]
TRIPLES = """subject,relation,object,source
Anvaya Foundry,LOCATED_IN,Hosur,Anvaya profile
Anvaya Foundry,SUPPLIES,Corvane Brake Systems,Supply agreement
Corvane Brake Systems,SUPPLIES,Zephyra Motors,Zephyra contract
"""


def facade(folder: Path, settings: Settings | None = None) -> HopGraph:
    hg = HopGraph(str(folder / "answer.db"), settings or Settings(), embedder=BagOfWordsEmbedder())
    hg.index_documents(DOCS)
    (folder / "triples.csv").write_text(TRIPLES, encoding="utf-8")
    hg.import_triples(folder / "triples.csv")
    return hg


@pytest.fixture
def hg(tmp_path: Path) -> Iterator[HopGraph]:
    graph = facade(tmp_path)
    yield graph
    graph.close()


def test_paths_mode_finds_every_path_into_the_entity_the_question_names(hg):
    result = hg.ask("Who depends on Zephyra Motors?", mode="paths")
    assert result.mode == "paths"
    assert [[(h.source, h.target) for h in path] for path in result.paths] == [
        [("Corvane Brake Systems", "Zephyra Motors")],
        [("Anvaya Foundry", "Corvane Brake Systems"), ("Corvane Brake Systems", "Zephyra Motors")],
    ]
    chunks = hg.store.chunk_table()
    by_title = {chunks.titles[int(d)]: int(c) for c, d in zip(chunks.ids, chunks.doc_ids, strict=True)}
    assert result.citations == [by_title["Zephyra contract"], by_title["Supply agreement"]]
    assert "Anvaya Foundry —SUPPLIES→ Corvane Brake Systems —SUPPLIES→ Zephyra Motors" in result.text
    assert "Since 2021 Anvaya Foundry supplies castings to Corvane Brake Systems." in result.text


WEATHER = Document("Weather", "Rain is expected tomorrow across the region.", "kg")  # a document stating no fact


def test_paths_mode_without_an_entity_in_the_question_falls_open_to_the_facts_of_the_top_hits(hg):
    result = hg.ask("What is the weather tomorrow?", mode="paths")
    assert result.mode == "paths" and result.hits
    assert result.note == "paths: no entity found; fell open to the facts of the top hits"
    hit_chunks = [h.chunk_id for h in result.hits]
    # Each fact a one-hop path citing the hit that states it, the best-ranked hit's facts first.
    assert all(len(path) == 1 and path[0].chunk_id in hit_chunks for path in result.paths)
    assert len(result.paths) == 3
    assert [hit_chunks.index(p[0].chunk_id) for p in result.paths] == sorted(hit_chunks.index(p[0].chunk_id)
                                                                           for p in result.paths)
    assert set(result.citations) == {p[0].chunk_id for p in result.paths}


def test_paths_mode_whose_top_hits_state_no_facts_falls_open_to_search_and_says_so(hg):
    hg.index_documents([WEATHER], replace_sources=False)
    result = hg.ask("Will it rain tomorrow?", mode="paths", top=1)
    assert result.paths == [] and result.mode == "search" and [h.title for h in result.hits] == ["Weather"]
    assert result.note == "paths: no entity found; the top hits state no facts; fell open to hybrid search"
    assert result.text  # the search's answer, not an empty one


def test_local_mode_answers_from_the_walked_relations(hg):
    result = hg.ask("What does Anvaya Foundry supply?", mode="local")
    assert result.mode == "local" and result.note == ""
    assert result.retrieval is not None and all(h.found_by == "graph" for h in result.retrieval.hits)
    assert "Anvaya Foundry —SUPPLIES→ Corvane Brake Systems" in result.text
    chunks = hg.store.chunk_table()
    supply = next(int(c) for c, d in zip(chunks.ids, chunks.doc_ids, strict=True)
                  if chunks.titles[int(d)] == "Supply agreement")
    assert supply in result.citations


def test_local_mode_that_finds_no_entity_answers_from_the_facts_of_the_top_hits(hg):
    result = hg.ask("Is it raining tomorrow?", mode="local")
    assert result.note == "no entity of the question is in the graph; fell open to the facts of the top hits"
    assert "—SUPPLIES→" in result.text and "—LOCATED_IN→" in result.text  # the relations, not the passages
    stated = {s.chunk_id for r in hg.knowledge_graph.relations for s in r.sources}
    assert result.hits and {h.chunk_id for h in result.hits} <= stated
    assert result.retrieval.trace[-1].stage == "facts of the top hits"


def test_local_mode_whose_top_hits_state_no_facts_answers_with_the_passages_and_says_so(hg):
    hg.index_documents([WEATHER], replace_sources=False)
    result = hg.ask("Will it rain tomorrow?", mode="local", top=1)
    assert result.note == ("no entity of the question is in the graph; the top hits state no facts; "
                           "fell open to hybrid search")
    assert [h.title for h in result.hits] == ["Weather"]
    assert result.citations == [h.chunk_id for h in result.retrieval.hits]


def test_an_unknown_mode_is_an_input_error(hg):
    with pytest.raises(InputError, match="unknown mode 'sideways'"):
        hg.ask("Who depends on Zephyra Motors?", mode="sideways")


def test_paths_mode_with_a_configured_llm_answers_from_its_cached_reply(tmp_path, listener):
    port = listener.getsockname()[1]
    hg = facade(tmp_path, Settings(llm_url=f"http://127.0.0.1:{port}/v1", llm_model=MODEL))
    try:
        question = "Who depends on Zephyra Motors?"
        paths = hg.paths("Zephyra Motors", "in", max_hops=3, max_paths=50, follow="all")  # as the mode walks
        texts = hg.chunk_texts({hop.chunk_id for path in paths for hop in path})
        key = cache_key(MODEL, answer_prompt.messages(question, [chain_text(p) for p in paths], texts),
                        "Answer", 800, 0.0)
        cache = hg.store.reply_cache()
        cache.put(key, MODEL, json.dumps({"answer": "Corvane, and through it Anvaya.",
                                          "citations": sorted(texts)}), 500, 20)
        cache.close()
        result = hg.ask(question, mode="paths")
    finally:
        hg.close()
    assert (result.text, result.writer) == ("Corvane, and through it Anvaya.", f"llm:{MODEL}")
    assert result.citations == sorted(texts)
    assert no_connection(listener)


@pytest.mark.parametrize(("reply", "is_refusal"), [
    ("I don't know", True), ("I do not know.", True), ("I cannot answer from these chunks", True),
    ("The chunks do not say where she lives.", True), ("The context does not mention it", True),
    ("Not mentioned in the chunks", True), ("Unknown", True), ("It cannot be determined", True),
    ("There is no information about that", True), ("No information", True),
    ("No", False), ("Yes", False), ("Greenwich Village", False), ("Unknown Pleasures (album)", False),
    ("Notting Hill", False), ("The Chunk Norris Show", False), ("1998", False),
])
def test_a_refusal_is_told_from_an_answer(reply: str, is_refusal: bool) -> None:
    from hopgraph.query.writers import refused

    assert refused(reply) is is_refusal
