"""`hopgraph ask`: every answering mode behind one call, and `auto`, where the router picks.

search   ranked chunks by a retrieval method (`--method`, default hybrid+names+links)
local    bounded walk from the question's entities in the knowledge graph, cited answer
paths    every relation path into the entities the question names, cited answer
global   map-reduce over community reports (extractive offline)
lazy     LazyGraphRAG: relevance tests down the community tree, no reports needed
drift    primer over reports → follow-up questions → local searches → ranked answer
auto     the router's choice (search.router), falling open to hybrid search when a graph mode
         cannot run (no knowledge graph yet) or returns nothing — never an empty answer unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hopgraph.errors import HopgraphError, InputError
from hopgraph.model import Retrieval

if TYPE_CHECKING:
    from hopgraph.engine import HopGraph

MODES = ("auto", "search", "local", "paths", "global", "lazy", "drift")
CORPUS_MODES = ("global", "lazy", "drift")
FALLBACK_METHOD = "hybrid"


@dataclass
class Asked:
    """What `ask` did: the mode that ran and why, its hits and/or answer, and what it used."""

    question: str
    mode: str
    why: str
    retrieval: Retrieval | None = None
    answer: str = ""
    citations: list[int] = field(default_factory=list)
    answer_mode: str = ""  # "extractive" or "llm:<model>"; "" for plain search
    used: dict[str, Any] = field(default_factory=dict)
    note: str = ""  # a fall-open, or what the mode could not do


def ask(hg: HopGraph, question: str, mode: str = "auto", method: str | None = None,
        top: int | None = None) -> Asked:
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    if mode == "auto":
        return _auto(hg, question, top)
    if mode == "search":
        chosen = method or "hybrid+names+links"
        return Asked(question, "search", f"--method {chosen}", hg.ask(question, method=chosen, top=top))
    return _graph_mode(hg, question, mode, "asked for")


def _auto(hg: HopGraph, question: str, top: int | None) -> Asked:
    route = hg.route(question)
    why = f"router: {route.kind} — {route.reason}"
    if route.kind == "global":
        try:
            asked = _graph_mode(hg, question, "global", why)
        except HopgraphError as err:  # no knowledge graph or communities yet: search still answers
            return _fall_open(hg, question, top, why, f"global search could not run ({err})")
        if asked.citations:
            return asked
        return _fall_open(hg, question, top, why, "global search found nothing relevant")
    retrieval = hg.ask(question, method="auto", top=top, route=route)  # routed once, not twice
    return Asked(question, "search", why, retrieval)


def _fall_open(hg: HopGraph, question: str, top: int | None, why: str, note: str) -> Asked:
    retrieval = hg.ask(question, method=FALLBACK_METHOD, top=top)
    return Asked(question, "search", why, retrieval, note=f"{note}; fell open to {FALLBACK_METHOD} search")


def _graph_mode(hg: HopGraph, question: str, mode: str, why: str) -> Asked:
    if mode in ("local", "paths"):
        graph_answer = hg.graph_answer(question, mode)
        return Asked(question, mode, why, graph_answer.retrieval, graph_answer.answer.text,
                     list(graph_answer.answer.citations), graph_answer.answer.mode, note=graph_answer.note)
    result: Any = {"global": hg.global_search, "lazy": hg.lazy_global, "drift": hg.drift}[mode](question)
    return Asked(question, mode, why, getattr(result, "retrieval", None), result.answer, list(result.citations),
                 result.mode, dict(result.used), note="; ".join(getattr(result, "errors", []) or []))
