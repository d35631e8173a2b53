"""The `hopgraph` command line: the typer app and `main`, which turns every failure into one line.

Exit status: 0 done, 2 a problem with the input or setup (one line names it; the store is left as it
was), 130 interrupted. A traceback means a bug in hopgraph.
"""

from __future__ import annotations

import sys

import typer
from typer.exceptions import TyperException

from hopgraph import __version__
from hopgraph.cli import communities, demo, export, graph, integrations, questions, serve, stats
from hopgraph.errors import HopgraphError
from hopgraph.store import database_errors

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="hopgraph: multi-hop retrieval over a name-link graph, in one SQLite file "
                       "(or PostgreSQL).")
for group in (questions, demo, graph, communities, export, stats, serve, integrations):
    group.register(app)


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"hopgraph {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                          help="Print hopgraph's version and exit.")) -> None:
    """hopgraph: multi-hop retrieval over a name-link graph, in one SQLite file (or PostgreSQL)."""

INTERRUPTED = 130


def main(args: list[str] | None = None) -> None:
    try:
        code = app(args=args, standalone_mode=False)
    except HopgraphError as err:
        _fail(str(err))
    except TyperException as err:  # usage: a missing argument, an unknown option, a bad value
        _fail(err.format_message())
    except (KeyboardInterrupt, typer.Abort):
        _interrupted()
    except OSError as err:  # a file that cannot be read or written, a full disk
        where = f"{err.filename}: " if err.filename else ""
        _fail(f"{where}{err.strerror or err}")
    except database_errors() as err:  # the store itself: locked, corrupt, read-only, its server gone
        _fail(f"the store: {err}")
    # Without standalone mode typer returns what it would have exited with: Ctrl-C becomes 130.
    if code == INTERRUPTED:
        _interrupted()
    if isinstance(code, int) and code:
        sys.exit(code)


def _fail(message: str) -> None:
    typer.echo(f"hopgraph: error: {' '.join(message.split())}", err=True)
    sys.exit(2)


def _interrupted() -> None:
    typer.echo("hopgraph: interrupted; the store is unchanged by the unfinished step", err=True)
    sys.exit(INTERRUPTED)


if __name__ == "__main__":
    main()
