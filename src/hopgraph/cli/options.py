"""The options every command shares, and how a command opens the store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from hopgraph.config import load_settings
from hopgraph.engine import HopGraph
from hopgraph.records.answers import JSON_SCHEMA_VERSION
from hopgraph.records.documents import utc_now
from hopgraph.store import backends, is_url

SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal", ".writer")  # what SQLite and the writer lease put beside a store

StoreOpt = Annotated[str | None, typer.Option(
    "--store", help=f"Store file, or a URL: {backends.described()} (default: config, else ./hopgraph.db).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")]
TopOpt = Annotated[int | None, typer.Option("--top", "-k", min=1, max=1000, help="Places in the answer.")]
NamesFromOpt = Annotated[str | None, typer.Option(
    "--names-from", help="Where names come from: auto (the text, plus titles that are names, decided per "
                         "document; the default), titles, text or both.")]
SearchInOpt = Annotated[str | None, typer.Option(
    "--search-in", help="Where retrieval ranks: auto (the default: database for a postgresql:// store, "
                        "else snapshot), snapshot (in process, over a snapshot kept on disk) or database "
                        "(PostgreSQL ranks in SQL, nothing local).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def open_hopgraph(store: str | None, quiet: bool, create: bool = False, **settings: Any) -> HopGraph:
    """The store named by --store (or the configuration), with any settings a flag overrides (None:
    not given). Commands that only read pass `create=False`: a mistyped path is then an error, not a
    new empty store."""
    return HopGraph(store, load_settings(store=store, **settings), quiet=quiet, create=create)


@contextmanager
def creating_hopgraph(store: str | None, quiet: bool, **settings: Any) -> Iterator[HopGraph]:
    """`open_hopgraph` for a command that may create the store: if the command fails, a SQLite store
    it created is removed with the folders made for it, so a failing write leaves nothing behind."""
    location = load_settings(store=store, **settings).store
    new = None if is_url(location) or Path(location).exists() else Path(location).absolute()
    made = _missing_folders(new.parent) if new else []
    try:
        with open_hopgraph(store, quiet, create=True, **settings) as hg:
            yield hg
    except BaseException:
        if new is not None:
            _remove_store(new, made)
        raise


def _missing_folders(folder: Path) -> list[Path]:
    """The folders that do not exist yet on the way to `folder`, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_store(path: Path, made: list[Path]) -> None:
    for file in (path, *(path.with_name(path.name + side) for side in SQLITE_SIDE_FILES)):
        file.unlink(missing_ok=True)
    for folder in made:  # deepest first; one that holds anything else stays
        try:
            folder.rmdir()
        except OSError:
            break


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
