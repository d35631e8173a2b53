"""Answer modes: one registry, a name → its runner and a one-line description.

A runner takes the question's context and the checked question (query/context.py,
query/question.py) and returns the `Answer` every mode returns. `hopgraph ask --mode`'s help, the
HTTP `/ask` description and validation, and the facade all read this registry; a plugin adds a mode
with one call:

    from hopgraph.query.modes import register_mode
    register_mode("echo", run_echo, "says the question back")

`writes` marks a mode that stores what it makes on first use (the community tree and reports):
the HTTP server runs it as a writer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hopgraph.errors import HopgraphError, InputError
from hopgraph.query.context import QueryContext
from hopgraph.query.modes.corpus import run_drift, run_global, run_lazy
from hopgraph.query.modes.iterative import run_iterative
from hopgraph.query.modes.search import run_auto, run_search
from hopgraph.query.modes.walks import run_local, run_paths
from hopgraph.query.question import Question
from hopgraph.records.answers import Answer

Runner = Callable[[QueryContext, Question], Answer]


@dataclass(frozen=True)
class Mode:
    name: str
    run: Runner
    description: str  # one line, for --help and the HTTP description
    writes: bool = False  # stores the community tree and reports it makes on first use


_MODES: dict[str, Mode] = {}


def register_mode(name: str, run: Runner, description: str, writes: bool = False) -> None:
    """Make `name` a mode of `ask`. Registering the same runner again is a no-op; another runner
    under a name already taken is an error (a plugin may not replace a mode silently)."""
    known = _MODES.get(name)
    if known is not None and known.run is not run:
        raise HopgraphError(f"mode {name!r} is registered already")
    _MODES[name] = Mode(name, run, description, writes)


def modes() -> tuple[Mode, ...]:
    """Every mode, the built-in ones first, in the order they were registered."""
    return tuple(_MODES.values())


def mode_names() -> tuple[str, ...]:
    return tuple(_MODES)


def get_mode(name: str) -> Mode:
    """The mode called `name`; InputError listing the known ones."""
    mode = _MODES.get(name)
    if mode is None:
        raise InputError(f"unknown mode {name!r}; use one of {', '.join(_MODES)}")
    return mode


def describe_modes(separator: str = " | ") -> str:
    """`auto (the router picks …) | search (…) | …`: every mode with its description."""
    return separator.join(f"{mode.name} ({mode.description})" for mode in _MODES.values())


register_mode("auto", run_auto, "the router picks and says why; falls open to hybrid search")
register_mode("search", run_search, "ranked chunks by a retrieval method (--method), then an answer")
register_mode("local", run_local, "a bounded walk from the question's entities in the knowledge graph")
register_mode("paths", run_paths, "every relation path into the entities the question names")
register_mode("global", run_global, "map-reduce over community reports", writes=True)
register_mode("lazy", run_lazy, "LazyGraphRAG: relevance tests down the community tree", writes=True)
register_mode("drift", run_drift, "a primer over reports, follow-ups by local search", writes=True)
register_mode("iterative", run_iterative, "search, the LLM names the next search; needs an LLM")
