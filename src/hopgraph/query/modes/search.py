"""`search` (ranked chunks by a retrieval method) and `auto`: the router's choice, falling open to
hybrid search when global search cannot run (no knowledge graph yet) or finds nothing — never an
empty answer unexplained. Search ends in an answer in query/asking.py, whichever mode chose it."""

from __future__ import annotations

from collections.abc import Callable

from hopgraph.errors import HopgraphError
from hopgraph.query.context import QueryContext
from hopgraph.query.modes.corpus import run_global
from hopgraph.query.question import FALLBACK_METHOD, Question
from hopgraph.records.answers import Answer
from hopgraph.records.retrieval import Retrieval
from hopgraph.retrieval.router import AUTO, Route

Search = Callable[[str, Route | None], Retrieval]  # (method, route) → ranked chunks


def run_search(ctx: QueryContext, question: Question) -> Answer:
    """Search by the question's method; `auto` takes the question's route when it has one."""
    method = question.search_method
    return Answer(question.text, "search", f"--method {method}",
                  ctx.search(question.text, method, question.top, question.limits.seeds, question.route, question.spec))


def run_auto(ctx: QueryContext, question: Question) -> Answer:
    """The routed mode (the question's route, else routed here, once): a global question goes to
    global search, anything else to the `auto` retrieval method (which reuses the route)."""
    route = question.route or ctx.route(question.text)
    why = f"router: {route.kind} — {route.reason}"

    def search(method: str, chosen: Route | None) -> Retrieval:
        return ctx.search(question.text, method, question.top, question.limits.seeds, chosen)

    if routed_mode(route) == "search":
        return Answer(question.text, "search", why, search(AUTO, route))
    try:
        asked = run_global(ctx, question, why)
    except HopgraphError as err:  # no knowledge graph or communities yet: search still answers
        return _fall_open(question.text, why, search, f"global search could not run ({err})")
    if asked.citations:
        return asked
    return _fall_open(question.text, why, search, "global search found nothing relevant")


def routed_mode(route: Route) -> str:
    """The mode `auto` answers a routed question in: global for a question about the whole
    collection, else search with the route's method (what the inspector says it would run)."""
    return "global" if route.kind == "global" else "search"


def _fall_open(question: str, why: str, search: Search, note: str) -> Answer:
    return Answer(question, "search", why, search(FALLBACK_METHOD, None),
                  note=f"{note}; fell open to {FALLBACK_METHOD} search")
