"""The options every command shares, and how a command opens the store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from typing import Annotated, Any

import typer

from hopgraph.config import load_settings
from hopgraph.engine import HopGraph
from hopgraph.records.answers import JSON_SCHEMA_VERSION
from hopgraph.records.documents import utc_now
from hopgraph.store import backends

StoreOpt = Annotated[str | None, typer.Option(
    "--store", help=f"Store file, or a URL: {backends.described()} (default: config, else ./hopgraph.db).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")]
TopOpt = Annotated[int | None, typer.Option("--top", "-k", min=1, max=1000, help="Places in the answer.")]
NamesFromOpt = Annotated[str | None, typer.Option(
    "--names-from", help="Where names come from: auto (the text, plus titles that are names, decided per "
                         "document; the default), titles, text or both.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def open_hopgraph(store: str | None, quiet: bool, create: bool = False, **settings: Any) -> HopGraph:
    """The store named by --store (or the configuration), with any settings a flag overrides (None:
    not given). Commands that only read pass `create=False`: a mistyped path is then an error, not a
    new empty store."""
    return HopGraph(store, load_settings(store=store, **settings), quiet=quiet, create=create)


@contextmanager
def logged_run(hg: HopGraph, command: str) -> Iterator[dict[str, Any]]:
    """A command that changes the store goes into its run log (`hopgraph stats`) when it succeeds,
    with the summary its body fills in."""
    started, summary = utc_now(), dict[str, Any]()
    yield summary
    hg.store.record_run(command, started, summary)


def print_json(value: Any) -> None:
    """Dataclasses as dicts; anything else JSON cannot say as its string."""
    data = asdict(value) if is_dataclass(value) and not isinstance(value, type) else value
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def print_result(command: str, value: Any) -> None:
    """A command's result as JSON (`--json`): `schema` (the version `ask --json` carries too) and
    `command`, then the result record's fields (a dataclass as `asdict`, or a dict)."""
    data = asdict(value) if is_dataclass(value) and not isinstance(value, type) else dict(value)
    print_json({"schema": JSON_SCHEMA_VERSION, "command": command, **data})
