"""A question is checked once at the top: its text, its mode and its method (parsed once), and in
`auto` mode routed once — however many layers run it."""

from __future__ import annotations

import pytest
from spies import count_calls

import hopgraph.query.question as question_module
import hopgraph.retrieval.methods as methods
import hopgraph.retrieval.router as router
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.query.asking import make_question
from hopgraph.query.question import MAX_QUESTION_CHARS, NO_LIMITS, Question, check_question
from hopgraph.retrieval.methods import MethodSpec

QUESTION = "Where is the director of Big Stone Gap based?"


def test_check_question_returns_the_question_stripped():
    assert check_question("  who directed it?\n") == "who directed it?"


@pytest.mark.parametrize("question", ["", "   \n\t"])
def test_check_question_rejects_an_empty_question(question):
    with pytest.raises(InputError, match="empty"):
        check_question(question)


def test_check_question_accepts_exactly_the_limit_and_rejects_one_more():
    assert check_question("q" * MAX_QUESTION_CHARS) == "q" * MAX_QUESTION_CHARS
    with pytest.raises(InputError, match=f"{MAX_QUESTION_CHARS:,}"):
        check_question("q" * (MAX_QUESTION_CHARS + 1))


def test_make_question_checks_the_text_and_parses_the_method_once():
    made = make_question("  Who?  ", "auto", "bm25+links", top=3)
    assert made == Question("Who?", "search", "bm25+links", MethodSpec("bm25", False, True), 3, True, NO_LIMITS)


def test_search_without_a_method_runs_the_default_method_parsed_and_auto_is_left_to_the_router():
    assert make_question("Who?", "search").spec == MethodSpec("hybrid", True, True)
    assert make_question("Who?", "search", "auto").spec is None
    assert make_question("Who?").spec is None and make_question("Who?").mode == "auto"


@pytest.mark.parametrize(("mode", "method", "wrong"), [("sideways", None, "unknown mode 'sideways'"),
                                                       ("local", "hybrid+bar", "unknown method"),
                                                       ("auto", "ppr+ppr", "unknown method")])
def test_make_question_refuses_a_bad_mode_or_method_before_any_work(mode, method, wrong):
    with pytest.raises(InputError, match=wrong):
        make_question("Who?", mode, method)


@pytest.mark.parametrize(("mode", "method"), [("auto", None), ("search", None), ("search", "hybrid+names+links"),
                                              ("auto", "ppr"), ("search", "auto"), ("local", None),
                                              ("paths", None)])
def test_the_facade_checks_a_question_once_parses_its_method_once_and_routes_it_at_most_once(
        tiny_graph: HopGraph, monkeypatch: pytest.MonkeyPatch, mode: str, method: str | None) -> None:
    checks = count_calls(monkeypatch, question_module.check_question)
    parses = count_calls(monkeypatch, methods.parse_method)
    routes = count_calls(monkeypatch, router.route)
    asked = tiny_graph.ask(QUESTION, mode, method)
    assert asked.hits or asked.text
    assert len(checks) == 1
    assert len(routes) == (1 if (mode == "auto" and method is None) or method == "auto" else 0)
    if method is not None and method != "auto":
        assert parses == [(method,)]


def test_a_question_routed_before_it_is_asked_is_not_routed_again(tiny_graph: HopGraph,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    routes = count_calls(monkeypatch, router.route)
    routed = tiny_graph.routed(tiny_graph.question(QUESTION))
    asked = tiny_graph.ask(routed)
    assert len(routes) == 1 and asked.why == f"router: {routed.route.kind} — {routed.route.reason}"


@pytest.mark.parametrize("question", ["\u200b\u200c\u200d", "\ufeff \u2060", "\x00\x01"])
def test_check_question_calls_a_question_of_invisible_characters_empty(question):
    with pytest.raises(InputError, match="the question is empty"):
        check_question(question)


def test_check_question_rejects_undecodable_bytes_in_one_line():
    question = b"caf\xe9 owner?".decode("utf-8", "surrogateescape")  # how argv carries a Latin-1 byte
    with pytest.raises(InputError, match="not valid UTF-8"):
        check_question(question)


def test_check_question_keeps_a_question_with_a_zero_width_joiner_inside():
    assert check_question("who runs Ca\u200df\u00e9 Noir?") == "who runs Ca\u200df\u00e9 Noir?"
