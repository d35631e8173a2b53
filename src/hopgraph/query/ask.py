"""`ask`: the answering modes, what each returns (`Answer`), and how `auto` picks one and falls open.

search   ranked chunks by a retrieval method (`--method`, default hybrid+names+links)
local    bounded walk from the question's entities in the knowledge graph, cited answer
paths    every relation path into the entities the question names, cited answer
global   map-reduce over community reports (extractive offline)
lazy     LazyGraphRAG: relevance tests down the community tree, no reports needed
drift    primer over reports → follow-up questions → local searches → ranked answer
iterative  retrieve, the LLM names the next search, retrieve again (IRCoT; needs an LLM)
auto     the router's choice (retrieval/router.py), falling open to hybrid search when a graph mode
         cannot run (no knowledge graph yet) or returns nothing — never an empty answer unexplained.

The facade (`HopGraph.ask`) runs one mode; this module holds only the policy, so it takes the
modes it may run as callables rather than the facade itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Protocol

from hopgraph.errors import HopgraphError, InputError
from hopgraph.records.answers import Answer
from hopgraph.records.retrieval import Retrieval
from hopgraph.retrieval.router import AUTO, Route

MODES = ("auto", "search", "local", "paths", "global", "lazy", "drift", "iterative")
CORPUS_MODES = ("global", "lazy", "drift")
DEFAULT_METHOD = "hybrid+names+links"  # what `--mode search` runs without `--method`
FALLBACK_METHOD = "hybrid"


class CorpusResult(Protocol):
    """What global, lazy and DRIFT search all return (lazy's `retrieval` holds the chunks that passed)."""

    answer: str
    citations: list[int]
    mode: str
    used: dict[str, Any]
    errors: list[str]
    retrieval: Retrieval | None


@dataclass(frozen=True)
class AskLimits:
    """Limits of one question over the settings' defaults (None: the setting, or the mode's own
    default). Each names the modes that honour it; the others ignore it."""

    seeds: int | None = None  # search (and auto's search): the top hits links and the PPR walk start from (0: none)
    max_hops: int | None = None  # local: hops of the walk from the question's entities
    max_nodes: int | None = None  # local: entities the walk visits at most
    steps: int | None = None  # iterative: retrievals at most (`iterative_steps`)
    answer_tokens: int | None = None  # with an LLM, search and iterative: hit text the model reads

    def __post_init__(self) -> None:
        for field in fields(self):
            value, least = getattr(self, field.name), 0 if field.name == "seeds" else 1
            if value is not None and value < least:
                raise InputError(f"limit {field.name} must be at least {least}, got {value}")


NO_LIMITS = AskLimits()


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    return mode


def from_corpus(question: str, mode: str, why: str, result: CorpusResult) -> Answer:
    """A global, lazy or DRIFT result as the `Answer` every mode returns."""
    return Answer(question, mode, why, result.retrieval, result.answer, list(result.citations), result.mode,
                  details=dict(result.used), note="; ".join(result.errors))


Search = Callable[[str, Route | None], Retrieval]  # (method, route) → ranked chunks


def auto(question: str, route: Route, run_global: Callable[[str], Answer], search: Search) -> Answer:
    """The routed mode: a global question goes to global search, anything else to the `auto`
    retrieval method (which reuses the route rather than routing again). Global search that cannot
    run (no knowledge graph yet) or finds nothing falls open to hybrid search, saying why."""
    why = f"router: {route.kind} — {route.reason}"
    if routed_mode(route) == "search":
        return Answer(question, "search", why, search(AUTO, route))
    try:
        asked = run_global(why)
    except HopgraphError as err:  # no knowledge graph or communities yet: search still answers
        return _fall_open(question, why, search, f"global search could not run ({err})")
    if asked.citations:
        return asked
    return _fall_open(question, why, search, "global search found nothing relevant")


def routed_mode(route: Route) -> str:
    """The mode `auto` answers a routed question in: global for a question about the whole
    collection, else search with the route's method (what the inspector says it would run)."""
    return "global" if route.kind == "global" else "search"


def _fall_open(question: str, why: str, search: Search, note: str) -> Answer:
    return Answer(question, "search", why, search(FALLBACK_METHOD, None),
                 note=f"{note}; fell open to {FALLBACK_METHOD} search")
