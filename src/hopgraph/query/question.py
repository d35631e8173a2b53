"""A question as the query path takes it: its text checked, its mode and method known (the method
parsed once), its places and the limits of its work, and the route once it is routed.

It is made once at the top — `HopGraph.ask`, `hopgraph ask`, `POST /ask` (query/asking.py
`make_question`) — and handed down as a value: nothing below checks or parses it again.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, fields, replace

from hopgraph.errors import InputError
from hopgraph.retrieval.methods import MethodSpec
from hopgraph.retrieval.router import Route

MAX_QUESTION_CHARS = 2000  # a question, not a document: the one limit of the CLI, the facade and HTTP
DEFAULT_METHOD = "hybrid+names+links"  # what `--mode search` runs without `--method`
FALLBACK_METHOD = "hybrid"  # what a mode that cannot answer falls open to


def check_question(question: str) -> str:
    """The question stripped; InputError when it is empty or longer than MAX_QUESTION_CHARS."""
    question = question.strip()
    if any("\ud800" <= ch <= "\udfff" for ch in question):  # argv's undecodable bytes (surrogateescape)
        raise InputError("the question is not valid UTF-8 text: it has bytes no encoding was given for")
    if not any(_visible(ch) for ch in question):  # zero-width spaces and joiners say nothing
        raise InputError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(f"the question is {len(question):,} characters long; the limit is "
                         f"{MAX_QUESTION_CHARS:,} (ask a question, not a document)")
    return question


def _visible(ch: str) -> bool:
    """Not a space, a control or an invisible format character (zero-width space, joiner, BOM)."""
    return not ch.isspace() and unicodedata.category(ch) not in {"Cc", "Cf"}


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


@dataclass(frozen=True)
class Question:
    """One checked question. `method` is what the asker gave (None: the mode's default) and `spec`
    that method parsed, for a search that runs it (None for `auto`, which the router resolves)."""

    text: str
    mode: str = "auto"
    method: str | None = None
    spec: MethodSpec | None = None
    top: int | None = None  # places in the answer (None: the setting `top`)
    answer: bool = True  # search ends in an answer written from its hits
    limits: AskLimits = NO_LIMITS
    route: Route | None = None  # set once, by whoever routes it first

    @property
    def search_method(self) -> str:
        return self.method or DEFAULT_METHOD

    def routed(self, route: Route) -> Question:
        return replace(self, route=route)
