"""The router: each kind on clear questions, the signal named in the reason, the LLM only when
undecided (a real HTTP server on 127.0.0.1, then the recorded reply replayed), and `auto`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_chat import scripted_chat

from hopgraph.llm import LLMClient, ReplayLLMCache
from hopgraph.prompts import route as route_prompt
from hopgraph.records.retrieval import Budget, Hit, Retrieval, Via
from hopgraph.retrieval import router
from hopgraph.retrieval.router import METHOD_OF, own_document_share, route
from hopgraph.text.tokens import count_tokens

LOOKUPS = ["When was Acme founded?", "Who painted the Mona Lisa?", "What is photosynthesis?"]
MULTIHOP = {
    "Where was the director of the film Casablanca born?": "chain of relations",
    "Who directed the film that won the 1998 award?": "relative clause",
    "Which film came out first, Vertigo or Psycho?": "comparison form",
    "Are Acme and Globex both based in Ohio?": "comparison form",
    "What Canadian actor starred in a film released on June 14th?": "unnamed thing described",
    "Who is the grandmother of Prince William?": "two-hop kinship word",
    "What nationality is Clara Voss's husband?": "chain of relations",
}
GLOBAL = {
    "What are the main themes of this story?": "main themes",
    "What risks keep showing up across the supplier audits?": "keep showing up",
    "Summarize the supply disruptions in these documents.": "Summarize",
}
UNDECIDED = "Tell me about brakes."  # no name, no form the rules know


@pytest.mark.parametrize("question", LOOKUPS)
def test_plain_questions_naming_one_thing_are_lookups(question):
    routed = route(question)
    assert routed.kind == "lookup"
    assert routed.decided_by == "rules"
    assert "plain question form" in routed.reason


@pytest.mark.parametrize(("question", "signal"), MULTIHOP.items())
def test_bridge_and_comparison_forms_are_multihop_and_the_reason_names_the_form(question, signal):
    routed = route(question)
    assert routed.kind == "multihop"
    assert signal in routed.reason
    assert routed.method == METHOD_OF["multihop"]


@pytest.mark.parametrize(("question", "words"), GLOBAL.items())
def test_questions_about_the_whole_collection_are_global(question, words):
    routed = route(question)
    assert routed.kind == "global"
    assert f'"{words}"' in routed.reason
    assert routed.method == "hybrid"


def test_a_lookup_is_not_mistaken_for_a_relation_nested_in_another():
    assert route("Who is the director of Casablanca?").kind == "lookup"
    assert route("Where was the director of Casablanca born?").kind == "multihop"


def test_names_found_by_the_index_decide(tiny_graph):
    two = tiny_graph.route("Is Gap Inc. older than Stone Age?")
    assert two.kind == "multihop"
    assert "names 2 documents" in two.reason and "Gap Inc." in two.reason and "Stone Age" in two.reason
    one = tiny_graph.route("Tell me about Greenwich Village.")
    assert one.kind == "lookup"
    assert "Greenwich Village" in one.reason
    assert one.signals["names"] == ["Greenwich Village"]


def test_summary_words_about_a_named_document_are_undecided_without_an_llm(tiny_graph):
    routed = tiny_graph.route("Summarize Greenwich Village.")
    assert routed.decided_by == "default"
    assert routed.kind == "multihop"


def test_undecided_without_an_llm_defaults_to_multihop_and_says_why():
    routed = route(UNDECIDED)
    assert (routed.kind, routed.decided_by) == ("multihop", "default")
    assert "no signal decided" in routed.reason


def _reply(kind: str, reason: str):
    return lambda body: (200, {"kind": kind, "reason": reason})


def test_the_llm_decides_only_undecided_questions_and_its_reply_replays(tmp_path: Path):
    recorded = tmp_path / "route_replies.json"
    with scripted_chat(_reply("global", "asks about the corpus as a whole")) as chat:
        cache = ReplayLLMCache(strict=False)
        with LLMClient(chat.url, "router-test", cache=cache, max_retries=0) as client:
            decided = route(UNDECIDED, llm=client)
            clear = route("Which film came out first, Vertigo or Psycho?", llm=client)
        assert len(chat.bodies) == 1  # the clear question never reached the LLM
        body = chat.bodies[0]
        assert body["messages"][0]["content"] == route_prompt.SYSTEM
        assert UNDECIDED in body["messages"][1]["content"]
        assert body["response_format"]["json_schema"]["schema"]["properties"]["kind"]["enum"] == [
            "lookup", "multihop", "global"]
        cache.record_to(recorded)
    assert (decided.kind, decided.decided_by) == ("global", "llm")
    assert decided.reason == "LLM: asks about the corpus as a whole"
    assert clear.decided_by == "rules"
    # Replay: no server at all; the recorded reply decides again, and a miss would be an error.
    with LLMClient("http://127.0.0.1:9/v1", "router-test", cache=ReplayLLMCache(recorded), max_retries=0) as client:
        replayed = route(UNDECIDED, llm=client)
    assert (replayed.kind, replayed.reason) == ("global", decided.reason)
    assert json.loads(recorded.read_text())[0]["model"] == "router-test"


def test_an_llm_reply_outside_the_kinds_or_a_dead_server_falls_back_to_the_default():
    with scripted_chat(_reply("local", "not a kind")) as chat, \
            LLMClient(chat.url, "router-test", max_retries=0) as client:
        routed = route(UNDECIDED, llm=client)
    assert (routed.kind, routed.decided_by) == ("multihop", "default")
    assert "llm_error" in routed.signals


# --- auto ------------------------------------------------------------------------------------------


def test_auto_runs_the_routed_method_and_its_trace_starts_with_the_route(tiny_graph):
    question = "The director of Big Stone Gap is based in what New York city?"
    retrieval = tiny_graph.search(question, method="auto", top=3)
    first = retrieval.trace[0]
    assert first.stage == "route"
    assert first.detail.startswith("multihop → hybrid+names+links+ppr (rules): bridge form")
    assert retrieval.method == "auto:hybrid+names+links+ppr"
    assert [h.chunk_id for h in retrieval.hits] == [
        h.chunk_id for h in tiny_graph.search(question, method="hybrid+names+links+ppr", top=3).hits]
    assert retrieval.trace[-1].stage == "budget" and "used 3 places" in retrieval.trace[-1].detail


def test_auto_falls_open_to_hybrid_when_the_graph_finds_nothing(tiny_graph):
    question = "Which American drama film producer won an Academy Award?"  # no name, no link reached
    retrieval = tiny_graph.search(question, method="auto", top=2)
    assert any(step.stage == "fall open" for step in retrieval.trace)
    hybrid = tiny_graph.search(question, method="hybrid", top=2)
    assert [h.chunk_id for h in retrieval.hits] == [h.chunk_id for h in hybrid.hits]
    assert {h.found_by for h in retrieval.hits} == {"hybrid"}


def test_auto_does_not_claim_a_fall_open_when_the_graph_found_something(tiny_graph):
    retrieval = tiny_graph.search("The director of Big Stone Gap is based in what New York city?", method="auto")
    assert all(step.stage != "fall open" for step in retrieval.trace)


def test_auto_answers_a_global_question_with_hybrid_search_and_says_so(tiny_graph):
    retrieval = tiny_graph.search("What are the main themes of this collection?", method="auto", top=2)
    assert retrieval.method == "auto:hybrid"
    assert "community search is not a retrieval method" in retrieval.trace[0].detail


def test_auto_fills_every_place_the_corpus_allows_each_chunk_once(tiny_graph):
    retrieval = tiny_graph.search("The director of Big Stone Gap is based in what New York city?", method="auto",
                               top=20)
    assert len(retrieval.hits) == 7  # every chunk of the tiny corpus, each once
    assert len({h.chunk_id for h in retrieval.hits}) == 7


# --- issue 21: auto steps aside when the graph placed nothing outside the other hits' documents ---------


def _hit(chunk: int, doc: int, found_by: str) -> Hit:
    return Hit(chunk_id=chunk, doc_id=doc, title=f"doc {doc}", text="", score=0.0, found_by=found_by)  # type: ignore[arg-type]


def test_own_document_share_counts_graph_hits_inside_the_other_hits_documents():
    assert own_document_share([_hit(1, 1, "hybrid"), _hit(2, 1, "link"), _hit(3, 2, "ppr")]) == 0.5
    assert own_document_share([_hit(1, 1, "name"), _hit(2, 1, "link")]) == 1.0
    assert own_document_share([_hit(1, 1, "hybrid"), _hit(2, 2, "hybrid")]) == 0.0  # the graph placed nothing


def test_auto_steps_aside_to_hybrid_only_when_a_graph_hit_stays_in_the_seeds_documents(tiny_graph, monkeypatch):
    question = "The director of Big Stone Gap is based in what New York city?"
    hybrid = tiny_graph.search(question, method="hybrid", top=3)
    inside = Retrieval("hybrid+names+links+ppr", [_hit(90, 7, "name"), _hit(91, 7, "link"), _hit(92, 7, "ppr")])
    outside = Retrieval("hybrid+names+links+ppr", [_hit(90, 7, "name"), _hit(91, 8, "link"), _hit(92, 9, "ppr")])
    real = router.run_method
    for graph, steps_aside in ((inside, True), (outside, False)):
        monkeypatch.setattr(router, "run_method", lambda index, q, method, budget, rrf_k, g=graph:
                            g if method != router.FALLBACK else real(index, q, method, budget, rrf_k))
        retrieval = tiny_graph.search(question, method="auto", top=3)
        assert any(step.stage == "step aside" for step in retrieval.trace) is steps_aside
        expected = [h.chunk_id for h in (hybrid.hits if steps_aside else graph.hits)]
        assert [h.chunk_id for h in retrieval.hits] == expected


def _linked(chunk: int, doc: int, found_by: str, from_chunk: int, ranked: bool = True) -> Hit:
    return Hit(chunk_id=chunk, doc_id=doc, title=f"doc {doc}", text="", score=0.0, found_by=found_by,  # type: ignore[arg-type]
               via=Via(from_chunk, "from", "a name"), ranks={"bm25": 40} if ranked else {})


def test_stepping_aside_keeps_a_graph_hit_in_a_new_document_reached_from_a_hit_that_stays(tiny_graph, monkeypatch):
    question = "The director of Big Stone Gap is based in what New York city?"
    hybrid = tiny_graph.search(question, method="hybrid", top=3).hits
    first, docs = hybrid[0].chunk_id, {h.doc_id for h in hybrid}
    new_doc = max(docs) + 100
    graph = Retrieval("hybrid+names+links+ppr", [
        _hit(first, hybrid[0].doc_id, "hybrid"),
        _linked(91, hybrid[0].doc_id, "ppr", first),  # a hop inside the seed's own document: the rule fires
        _linked(92, new_doc, "link", first),  # a hop from hybrid's best hit to a new document: it stays
        _linked(93, new_doc + 1, "link", 90),  # a hop from a hit hybrid does not keep: it goes
        _linked(94, new_doc + 2, "link", first, ranked=False)])  # no ranker reaches it (a name every book shares)
    real = router.run_method
    monkeypatch.setattr(router, "run_method", lambda index, q, method, budget, rrf_k:
                        graph if method != router.FALLBACK else real(index, q, method, budget, rrf_k))
    retrieval = tiny_graph.search(question, method="auto", top=3)
    assert any(step.stage == "step aside" for step in retrieval.trace)
    assert [h.chunk_id for h in retrieval.hits] == [h.chunk_id for h in hybrid[:2]] + [92]
    monkeypatch.setattr(router, "KEEP_CROSS_DOCUMENT", False)  # the rule as it was: hybrid's hits alone
    assert [h.chunk_id for h in tiny_graph.search(question, method="auto", top=3).hits] == [
        h.chunk_id for h in hybrid]


def test_a_kept_cross_document_hit_still_obeys_the_context_token_budget(tiny_graph, monkeypatch):
    question = "The director of Big Stone Gap is based in what New York city?"
    index = tiny_graph.search_index
    hybrid = router.run_method(index, question, router.FALLBACK, Budget(top=3), 10).hits
    first = hybrid[0].chunk_id
    long_hop = _linked(92, max(h.doc_id for h in hybrid) + 100, "link", first)
    long_hop.text = "caliper " * 400  # far more than the budget leaves
    graph = Retrieval("hybrid+names+links+ppr", [_hit(first, hybrid[0].doc_id, "hybrid"),
                                                 _linked(91, hybrid[0].doc_id, "ppr", first), long_hop])
    real = router.run_method
    monkeypatch.setattr(router, "run_method", lambda index, q, method, budget, rrf_k:
                        graph if method != router.FALLBACK else real(index, q, method, budget, rrf_k))
    room = sum(count_tokens(h.text) for h in hybrid[:2]) + 20
    kept = router.run_auto(index, question, Budget(top=3, context_tokens=room)).hits
    assert [h.chunk_id for h in kept] == [h.chunk_id for h in hybrid[:2]]  # the long hop does not fit
    assert [h.chunk_id for h in router.run_auto(index, question, Budget(top=3)).hits] == [
        *(h.chunk_id for h in hybrid[:2]), 92]


def test_seeds_in_one_document_needs_two_seeds_there_and_a_graph_hit():
    assert router.seeds_in_one_document([_hit(1, 1, "name"), _hit(2, 1, "hybrid"), _hit(3, 2, "ppr")])
    assert not router.seeds_in_one_document([_hit(1, 1, "name"), _hit(2, 2, "hybrid"), _hit(3, 3, "ppr")])
    assert not router.seeds_in_one_document([_hit(1, 1, "name"), _hit(3, 2, "link")])  # one seed decides nothing
    assert not router.seeds_in_one_document([_hit(1, 1, "hybrid"), _hit(2, 1, "hybrid")])  # the graph placed none


def test_auto_steps_aside_when_its_seeds_share_one_document_and_the_graph_leaves_it(tiny_graph, monkeypatch):
    question = "The director of Big Stone Gap is based in what New York city?"
    hybrid = tiny_graph.search(question, method="hybrid", top=3).hits
    out = max(h.doc_id for h in hybrid) + 100
    graph = Retrieval("hybrid+names+links+ppr", [_hit(90, 7, "name"), _hit(91, 7, "hybrid"),
                                                 _linked(92, out, "ppr", 91, ranked=False)])  # a novel's "Wood"
    real = router.run_method
    monkeypatch.setattr(router, "run_method", lambda index, q, method, budget, rrf_k:
                        graph if method != router.FALLBACK else real(index, q, method, budget, rrf_k))
    retrieval = tiny_graph.search(question, method="auto", top=3)
    assert any(step.stage == "step aside" for step in retrieval.trace)
    assert [h.chunk_id for h in retrieval.hits] == [h.chunk_id for h in hybrid]
    monkeypatch.setattr(router, "STEP_ASIDE_ONE_DOCUMENT", False)  # the share rule alone keeps the graph's hits
    assert [h.chunk_id for h in tiny_graph.search(question, method="auto", top=3).hits] == [90, 91, 92]


def test_auto_gives_hybrids_hits_when_most_ranked_hits_lie_in_long_documents(tiny_graph, monkeypatch):
    question = "The director of Big Stone Gap is based in what New York city?"
    hybrid = tiny_graph.search(question, method="hybrid", top=3).hits
    first = hybrid[0]
    graph = Retrieval("hybrid+names+links+ppr", [_hit(first.chunk_id, first.doc_id, "hybrid"),
                                                 _linked(92, max(h.doc_id for h in hybrid) + 100, "link",
                                                         first.chunk_id)])  # a hop the share rule would keep
    real = router.run_method
    monkeypatch.setattr(router, "run_method", lambda index, q, method, budget, rrf_k, **kw:
                        graph if method != router.FALLBACK else real(index, q, method, budget, rrf_k, **kw))
    kept = tiny_graph.search(question, method="auto", top=3)  # one-chunk paragraphs: the graph's hits stay
    assert [h.chunk_id for h in kept.hits][:2] == [first.chunk_id, 92]
    monkeypatch.setattr(router, "LONG_DOCUMENT_CHUNKS", 1)  # now every document is a long one
    monkeypatch.setattr(router, "LONG_DOCUMENT_KEYWORD_WEIGHT", 1.0)
    aside = tiny_graph.search(question, method="auto", top=3)
    assert [h.chunk_id for h in aside.hits] == [h.chunk_id for h in hybrid]
    assert any(step.stage == "step aside" and "documents of 1+ chunks" in step.detail for step in aside.trace)


def test_in_long_documents_auto_gives_keyword_weighted_hybrid_whatever_the_route(tiny_graph, monkeypatch):
    """The long-document rule runs before the others, so a lookup routed to hybrid and a graph
    method that fell open both end in hybrid with BM25's ranks weighted LONG_DOCUMENT_KEYWORD_WEIGHT×."""
    question = "The director of Big Stone Gap is based in what New York city?"
    index, budget = tiny_graph.search_index, Budget(top=3)
    weighted = router.run_method(index, question, "hybrid", budget, keyword_weight=50.0)
    bm25 = router.run_method(index, question, "bm25", budget)
    assert [h.chunk_id for h in weighted.hits] == [h.chunk_id for h in bm25.hits]  # keywords decide
    monkeypatch.setattr(router, "LONG_DOCUMENT_CHUNKS", 1)
    monkeypatch.setattr(router, "LONG_DOCUMENT_KEYWORD_WEIGHT", 50.0)
    for chosen in (router.Route("lookup", router.FALLBACK, "test"),
                   router.Route("multihop", "hybrid+names+links+ppr", "test")):
        found = router.run_auto(index, question, budget, chosen=chosen)
        assert [h.chunk_id for h in found.hits] == [h.chunk_id for h in weighted.hits]
        assert any(step.stage == "step aside" and "weighted 50×" in step.detail for step in found.trace)


def test_on_long_documents_the_routed_graph_method_never_runs_and_without_them_nothing_extra_does(
        tiny_graph, monkeypatch):
    """The long-document check is made on keyword-leaning hybrid's own hits before any graph stage:
    one search on long documents; a store without a long document runs only the routed method."""
    question = "The director of Big Stone Gap is based in what New York city?"
    index, budget = tiny_graph.search_index, Budget(top=3)
    ran: list[tuple[str, float]] = []
    real = router.run_method
    monkeypatch.setattr(router, "run_method", lambda index, q, method, budget, rrf_k=10, **kw:
                        ran.append((method, kw.get("keyword_weight", 1.0))) or real(index, q, method, budget, rrf_k,
                                                                                    **kw))
    chosen = router.Route("multihop", "hybrid+names+links+ppr", "test")
    assert index.longest_document() < router.LONG_DOCUMENT_CHUNKS
    router.run_auto(index, question, budget, chosen=chosen)
    assert ran == [("hybrid+names+links+ppr", 1.0)]
    ran.clear()
    monkeypatch.setattr(router, "LONG_DOCUMENT_CHUNKS", index.longest_document())
    found = router.run_auto(index, question, budget, chosen=chosen)
    assert ran == [(router.FALLBACK, router.LONG_DOCUMENT_KEYWORD_WEIGHT)]
    assert found.method == "auto:hybrid+names+links+ppr" and "no hybrid+names+links+ppr" in found.trace[1].detail


def test_chunks_in_document_counts_each_documents_chunks_and_zero_for_an_unknown_one(tiny_graph):
    index = tiny_graph.search_index
    docs = index.table.doc_ids.tolist()
    asked = [docs[0], docs[-1], max(docs) + 1]
    assert index.chunks_in_document(asked) == [docs.count(docs[0]), docs.count(docs[-1]), 0]
    assert router.in_long_documents(index, [_hit(1, docs[0], "hybrid"), _hit(2, docs[0], "link")]) is (
        docs.count(docs[0]) >= router.LONG_DOCUMENT_CHUNKS)
