"""Global search: map-reduce against a scripted OpenAI-compatible server on 127.0.0.1 (score-0 points
dropped, packing by score until the context is full, citations checked), dynamic community selection,
the offline ranking, and the themes question on the bundled book."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from scripted_chat import USAGE, ScriptedChat, scripted_chat
from testkit import TEST_DATA, BagOfWordsEmbedder

from hopgraph.communities.labels import mentions, words
from hopgraph.engine import HopGraph
from hopgraph.llm import LLMClient, LLMError, ReplayLLMCache
from hopgraph.prompts import community_rating, global_map, global_reduce
from hopgraph.query.global_search import (
    GlobalBudget,
    Point,
    global_search,
    pack,
    point_line,
    rank_reports,
    select_communities,
)
from hopgraph.records.communities import Community, CommunityReport, CommunityTree, Finding
from hopgraph.text.tokens import count_tokens as tokens

# --- a hand-built tree: two roots, three children each ------------------------------------------------
# 0 ghosts (children 2, 3, 4), 1 the counting-house (children 5, 6, 7). Community k cites chunks 10k, 10k+1.
TOPICS = {
    0: ("Marley's Ghost and the Spirits", "ghost spirit haunting chains Marley", 6.0),
    1: ("The counting-house", "ledger clerk counting-house accounts coal", 6.0),
    2: ("Marley's Ghost", "ghost of Marley drags chains and cash-boxes", 5.0),
    3: ("The Ghost of Christmas Past", "spirit shows the school and Fezziwig's ball", 5.0),
    4: ("Ghost stories", "the bell tolls and the spirit vanishes", 5.0),
    5: ("The ledger", "the ledger of debts in the counting-house", 5.0),
    6: ("Bob Cratchit the clerk", "the clerk warms his hands at a candle", 5.0),
    7: ("Coal and fire", "the coal-box kept in the counting-house", 5.0),
}


def report(community_id: int, level: int) -> CommunityReport:
    title, words, rating = TOPICS[community_id]
    findings = [Finding(f"{title}: {words}, first finding, told at some length so the report is long. " * 2,
                        chunk_ids=[10 * community_id]),
                Finding(f"{title}: {words}, second finding.", chunk_ids=[10 * community_id + 1])]
    return CommunityReport(community_id, level, title, f"About {words}.", rating, [title], [], findings)


def tree() -> CommunityTree:
    communities = [Community(0, 0, None, [0], [2, 3, 4]), Community(1, 0, None, [1], [5, 6, 7])]
    communities += [Community(c, 1, 0 if c < 5 else 1, [c]) for c in range(2, 8)]
    return CommunityTree(communities)


REPORTS = [report(c, 0 if c < 2 else 1) for c in range(8)]
QUESTION = "What do the ghosts want from Scrooge?"
ONE_REPORT_PER_BATCH = tokens(global_map.SYSTEM) + 1  # after the prompt's own tokens, room for ~nothing

# What each report's map call answers: (description, score, cited chunk ids); 999 is in no report.
LONG = "The counting-house ledger is mentioned, at great length and of little help. " * 6
POINTS: dict[int, list[tuple[str, int, list[int]]]] = {
    2: [("A: Marley's Ghost warns Scrooge.", 90, [20, 999]), ("B: nothing useful.", 0, [21])],
    3: [("C: the Spirit shows Scrooge his past.", 60, [30])],
    4: [(f"D: {LONG}", 30, [40])],
    5: [("E: the ledger holds debts.", 10, [50])],
    6: [("G: nothing here.", 0, [])],
    7: [("F: coal is rationed.", 5, [70])],
}
REDUCE = {"answer": "The ghosts want Scrooge to change.", "citations": [20, 30, 40, 555]}


def reports_in(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[report (\d+)\]", text)]


def respond(body: dict[str, Any], ratings: dict[int, int] | None = None,
            failing: frozenset[int] = frozenset()) -> tuple[int, Any]:
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system == global_reduce.SYSTEM:
        return 200, REDUCE
    if system == community_rating.SYSTEM:
        return 200, {"ratings": [{"report": r, "relevance": (ratings or {}).get(r, 0)} for r in reports_in(user)]}
    assert system == global_map.SYSTEM
    ids = reports_in(user)
    if failing & set(ids):
        return 401, "this batch is refused"
    points = [p for r in ids for p in POINTS[r]]
    return 200, {"points": [{"description": d, "score": s, "chunk_ids": c} for d, s, c in points]}


@pytest.fixture
def client_for() -> Iterator[Any]:
    opened: list[tuple[Any, LLMClient]] = []

    def make(chat_context: Any) -> tuple[ScriptedChat, LLMClient]:
        chat = chat_context.__enter__()
        client = LLMClient(chat.url, "scripted", max_retries=0, timeout=10.0)
        opened.append((chat_context, client))
        return chat, client

    yield make
    for context, client in opened:
        client.close()
        context.__exit__(None, None, None)


def expected_lines() -> tuple[str, str, str]:
    """The reduce context lines of A and C as packed (999 dropped from A), and E's."""
    a = point_line(1, Point("A: Marley's Ghost warns Scrooge.", 90, [20], []))
    c = point_line(2, Point("C: the Spirit shows Scrooge his past.", 60, [30], []))
    e = point_line(3, Point("E: the ledger holds debts.", 10, [50], []))
    return a, c, e


# --- map-reduce with the LLM ----------------------------------------------------------------------------


def test_map_reduce_drops_score_zero_packs_by_score_and_cites_only_packed_chunks(client_for: Any) -> None:
    chat, client = client_for(scripted_chat(respond))
    a, c, e = expected_lines()
    # Room for A, C and E, but not for D: D does not fit, so D and everything after it stays out.
    budget = GlobalBudget(level=1, batch_tokens=ONE_REPORT_PER_BATCH, context_tokens=tokens(a) + tokens(c) + tokens(e))
    result = global_search(QUESTION, REPORTS, tree(), budget, client)

    assert result.used["batches"] == 6 and len(chat.user_messages(global_map.SYSTEM)) == 6
    assert result.dropped_zero == 2  # B and G
    assert [p.text[:2] for p in result.points] == ["A:", "C:"]
    assert [p.text[:2] for p in result.left_out] == ["D:", "E:", "F:"]  # E would fit: the best prefix is kept
    assert result.points[0].chunk_ids == [20] and result.points[0].community_ids == [2]
    [reduce_input] = chat.user_messages(global_reduce.SYSTEM)
    assert a in reduce_input and c in reduce_input
    assert not any(x in reduce_input for x in ("B:", "D:", "E:", "F:", "G:"))
    assert result.used["context_tokens"] == tokens(a) + tokens(c)
    # The answer cites only chunks of packed points: 40 (D, left out) and 555 (nowhere) are dropped.
    assert result.answer == REDUCE["answer"] and result.citations == [20, 30]
    assert {c for r in REPORTS for c in r.citations} >= set(result.citations)
    assert result.used["dropped_citations"] == 3  # 999 in A, then 40 and 555 in the answer
    used = result.used
    assert (used["llm_calls"], used["map_calls"], used["reduce_calls"]) == (7, 6, 1)
    assert (used["tokens_in"], used["tokens_out"]) == (7 * USAGE["prompt_tokens"], 7 * USAGE["completion_tokens"])
    assert client.usage["global_map"].calls == 6 and client.usage["global_reduce"].calls == 1
    assert result.mode == "llm:scripted" and used["reports_read"] == 6 and used["calls_saved"] == 0


def test_a_failed_map_batch_is_counted_and_the_answer_still_written(client_for: Any) -> None:
    _, client = client_for(scripted_chat(lambda body: respond(body, failing=frozenset({2}))))
    result = global_search(QUESTION, REPORTS, tree(), GlobalBudget(level=1, batch_tokens=ONE_REPORT_PER_BATCH), client)
    assert result.used["failed_map"] == 1 and result.used["map_calls"] == 5
    assert "this batch is refused" in result.errors[0]
    assert [p.text[:2] for p in result.points] == ["C:", "D:", "E:", "F:"]  # A came from the failed batch
    assert result.answer == REDUCE["answer"] and result.citations == [30, 40]


def test_when_every_map_call_fails_global_search_says_the_llm_failed(client_for: Any) -> None:
    everything = frozenset(r.community_id for r in REPORTS)
    chat, client = client_for(scripted_chat(lambda body: respond(body, failing=everything)))
    with pytest.raises(LLMError, match=r"global search: all \d+ map calls failed, so no report was read"):
        global_search(QUESTION, REPORTS, tree(), GlobalBudget(level=1, batch_tokens=ONE_REPORT_PER_BATCH), client)
    assert not chat.user_messages(global_reduce.SYSTEM)  # no answer was written from nothing


def test_batches_are_shuffled_by_the_seed_and_filled_to_the_token_budget(client_for: Any) -> None:
    def order(seed: int, batch_tokens: int) -> list[list[int]]:
        chat, client = client_for(scripted_chat(respond))
        # What is sent is checked here; one batch of every report overflows the map reply (an error).
        with contextlib.suppress(LLMError):
            global_search(QUESTION, REPORTS, tree(), GlobalBudget(level=1, batch_tokens=batch_tokens, seed=seed),
                          client)
        return [reports_in(m) for m in chat.user_messages(global_map.SYSTEM)]

    one_each = order(1, ONE_REPORT_PER_BATCH)
    assert sorted(b[0] for b in one_each) == [2, 3, 4, 5, 6, 7]
    report_tokens = max(tokens(f"[report {r.community_id}]\n{r.text()}") for r in REPORTS)
    two_each = order(1, tokens(global_map.SYSTEM) + 2 * report_tokens + 1)
    assert [len(b) for b in two_each] == [2, 2, 2]
    assert order(1, 10**6) == order(1, 10**6)  # same seed, same batch: same cache key on a re-run
    assert {tuple(order(s, 10**6)[0]) for s in range(6)} != {(2, 3, 4, 5, 6, 7)}  # shuffled, not id order


def test_pack_keeps_the_best_prefix_that_fits() -> None:
    points = [Point("low", 10, [], []), Point("high", 90, [], []), Point("mid", 50, [], [])]
    kept, left = pack(points, tokens(point_line(1, points[1])) + tokens(point_line(2, points[2])))
    assert [p.text for p in kept] == ["high", "mid"] and [p.text for p in left] == ["low"]
    # The one packing rule: never fewer than one (a context needs one passage), so the best point stays.
    assert pack(points, 0) == (points[1:2], [points[2], points[0]])


# --- dynamic community selection -------------------------------------------------------------------------


def test_dynamic_selection_rates_roots_first_and_never_reads_an_irrelevant_branch(client_for: Any) -> None:
    ratings = {0: 9, 1: 1, 2: 9, 3: 7, 4: 2}  # ghosts relevant (but not child 4), counting-house not
    chat, client = client_for(scripted_chat(lambda body: respond(body, ratings)))
    budget = GlobalBudget(level=1, batch_tokens=ONE_REPORT_PER_BATCH, dynamic=True)
    result = global_search(QUESTION, REPORTS, tree(), budget, client)

    rated = [reports_in(m) for m in chat.user_messages(community_rating.SYSTEM)]
    assert rated == [[0, 1], [2, 3, 4]]  # the counting-house's children were never rated
    mapped = sorted(r for m in chat.user_messages(global_map.SYSTEM) for r in reports_in(m))
    assert mapped == [2, 3]
    used = result.used
    assert (used["communities_rated"], used["communities_pruned"], used["reports_read"]) == (5, 2, 2)
    assert used["map_calls"] == 2 < used["map_calls_without_selection"] == 6  # fewer map calls
    assert used["rate_calls"] == 2 and used["calls_saved"] == (6 + 1) - (2 + 2 + 1)
    assert [p.text[:2] for p in result.points] == ["A:", "C:"]


def test_a_relevant_parent_with_no_relevant_child_is_kept_itself() -> None:
    by_id = {r.community_id: r for r in REPORTS}
    used: dict[str, Any] = {}
    scores = {0: 8.0, 1: 1.0}  # children all 0
    selected = select_communities(tree(), by_id, GlobalBudget(level=1, dynamic=True),
                                  lambda batch: {r.community_id: scores.get(r.community_id, 0.0) for r in batch},
                                  used)
    assert [r.community_id for r in selected] == [0]
    assert used == {"communities_rated": 5, "communities_pruned": 4}


def test_dynamic_selection_descends_no_deeper_than_the_level_asked_for() -> None:
    by_id = {r.community_id: r for r in REPORTS}
    used: dict[str, Any] = {}
    selected = select_communities(tree(), by_id, GlobalBudget(level=0, dynamic=True),
                                  lambda batch: {r.community_id: 9.0 for r in batch}, used)
    assert [r.community_id for r in selected] == [0, 1] and used["communities_rated"] == 2


def test_offline_dynamic_selection_prunes_the_other_branch() -> None:
    budget = GlobalBudget(level=1, dynamic=True)
    result = global_search("Who keeps the ledger of debts in the counting-house?", REPORTS, tree(), budget,
                           embedder=BagOfWordsEmbedder())
    assert {c for p in result.points for c in p.community_ids} <= {1, 5, 6, 7}
    assert result.points[0].community_ids == [5]  # the ledger
    assert result.used["communities_rated"] == 2 + 3 and result.used["llm_calls"] == 0


# --- offline ranking ----------------------------------------------------------------------------------


def test_a_generic_question_is_decided_by_importance() -> None:
    reports = [report(c, 0) for c in range(2, 8)]
    reports[3].rating = 9.0  # the ledger: most important
    reports[4].summary += " The main street."  # one of the question's words, by chance
    ranked = rank_reports("What are the main themes of this story?", reports, BagOfWordsEmbedder())
    assert ranked[0][0].community_id == 5 and ranked[0][1] == 10.0


def test_a_specific_question_beats_importance() -> None:
    reports = [report(c, 0) for c in range(2, 8)]
    reports[0].rating = 10.0  # Marley's Ghost: most important, but not what is asked
    ranked = rank_reports("What is kept in the coal-box?", reports, BagOfWordsEmbedder())
    assert ranked[0][0].community_id == 7


def test_offline_answer_without_labels_lists_each_reports_findings_with_their_citations() -> None:
    result = global_search(QUESTION, REPORTS, tree(), GlobalBudget(level=1, themes=3),
                           embedder=BagOfWordsEmbedder())
    assert result.mode == "extractive" and result.answer.startswith("Themes (no LLM configured)")
    assert len(result.points) == 3 and result.citations == [c for p in result.points for c in p.chunk_ids]
    assert all(len(p.chunk_ids) == 2 for p in result.points)  # two findings per theme, each citing its chunk
    assert all(f"[chunks {c}]" in result.answer for p in result.points for c in p.chunk_ids)
    titles = {r.community_id: r.title for r in REPORTS}
    assert all(f". {titles[p.community_ids[0]]}\n" in result.answer for p in result.points)  # named by title
    assert result.used["llm_calls"] == 0 and result.used["reports_read"] == 6 and result.used["themes"] == 3


# --- the bundled book --------------------------------------------------------------------------------------


def answer_themes(answer: str) -> list[tuple[str, list[tuple[str, list[int]]]]]:
    """The numbered themes of an offline answer: (name, [(sentence, cited chunk ids)])."""
    found: list[tuple[str, list[tuple[str, list[int]]]]] = []
    for line in answer.splitlines()[1:]:
        if match := re.match(r"(\d+)\. (.+)$", line):
            assert int(match.group(1)) == len(found) + 1
            found.append((match.group(2), []))
        elif match := re.match(r"   - (.+) \[chunks ([\d, ]+)\]$", line):
            found[-1][1].append((match.group(1), [int(c) for c in match.group(2).split(", ")]))
    return found


@pytest.mark.slow
def test_the_themes_of_the_book_offline_are_labelled_supported_and_cite_real_chunks(book: HopGraph) -> None:
    result = book.global_search("What are the main themes of this story?")
    chunk_ids = {int(c) for c in book.search_index.table.ids}
    assert result.mode == "extractive" and result.used["llm_calls"] == 0
    assert set(result.citations) <= chunk_ids
    reports = {r.community_id: r for r in book.reports().reports}
    found = answer_themes(result.answer)
    assert len(found) == len(result.points) == GlobalBudget().themes >= 5
    shown: list[tuple[str, ...]] = []
    for (name, sentences), point in zip(found, result.points, strict=True):
        labels = reports[point.community_ids[0]].labels[:3]
        assert labels and name == " · ".join(labels)  # each theme is named by its community's labels
        shown += [tuple(words(label)) for label in labels]
        assert 1 <= len(sentences) <= 2 and point.chunk_ids
        for sentence, cited in sentences:
            assert cited and set(cited) <= chunk_ids and set(cited) <= set(result.citations)
            texts = book.chunk_texts(set(cited))
            assert all(sentence in " ".join(texts[c].split()) for c in cited)  # a sentence of each chunk it cites
            assert any(mentions(words(label), words(sentence)) for label in labels)  # that says the name
    assert len(set(shown)) == len(shown)  # distinct themes: no label names two of them
    level0 = [r for r in reports.values() if r.level == 0]
    most_important = max(level0, key=lambda r: (r.rating, -r.community_id))
    assert result.points[0].community_ids == [most_important.community_id]  # a generic question: importance
    graph = book.knowledge_graph
    most_said = max(graph.entities.values(), key=lambda e: (len(e.chunks), -e.id))
    # The hub is named by its protagonist (among its three labels: c-TF-IDF may rank the Spirit, said
    # mostly in the hub, above the protagonist said everywhere).
    assert words(most_said.name) in [words(label) for label in found[0][0].split(" · ")]


# Recorded by bench/record_global_replies.py from Qwen2.5-Coder-1.5B-Instruct on the same store, with
# this budget (the requests must be byte-identical to be found in the recording).
REPLIES = TEST_DATA / "global_replies.json"
RECORDED_BUDGET = GlobalBudget(level=0, batch_tokens=2000, context_tokens=400)


@pytest.mark.slow
@pytest.mark.skipif(not REPLIES.exists(), reason="no recorded global-search replies")
def test_recorded_real_model_replies_replay_the_map_reduce_offline(book: HopGraph) -> None:
    model = json.loads(REPLIES.read_text(encoding="utf-8"))[0]["model"]
    # Port 9 (discard) on loopback: a request missing from the recording is an error, never a call.
    client = LLMClient("http://127.0.0.1:9/v1", model, max_retries=0, cache=ReplayLLMCache(REPLIES, strict=True))
    reports = book.reports(use_llm=False).reports
    result = global_search("What are the main themes of this story?", reports, book.communities(),
                           RECORDED_BUDGET, client)
    used = result.used
    assert not result.errors and "failed_map" not in used and "failed_reduce" not in used
    assert used["map_calls"] == used["batches"] >= 2 and used["reduce_calls"] == 1
    assert used["cached_calls"] == used["llm_calls"] == used["batches"] + 1
    assert sum(u.requests for u in client.usage.values()) == 0  # all of it from the recording
    assert used["tokens_in"] > 1000 and used["tokens_out"] > 0  # what the real model was billed
    scores = [p.score for p in result.points]
    assert scores and scores == sorted(scores, reverse=True) and min(scores) > 0  # score 0 never packed
    assert all(p.score <= scores[-1] for p in result.left_out)
    assert used["context_tokens"] <= RECORDED_BUDGET.context_tokens
    chunk_ids = {int(c) for c in book.search_index.table.ids}
    assert set(result.citations) <= chunk_ids and all(set(p.chunk_ids) <= chunk_ids for p in result.points)
    assert result.answer and result.mode == f"llm:{model}"
