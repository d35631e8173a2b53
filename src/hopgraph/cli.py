"""The `hopgraph` command line: index, ask, eval, demo, stats. Errors print one line, exit 2."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from hopgraph import cli_communities, cli_graph
from hopgraph.config import load_settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.model import Retrieval

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="hopgraph: multi-hop retrieval over a name-link graph, in one SQLite file.")

StoreOpt = Annotated[str | None, typer.Option("--store", help="Store file (default: config, else ./hopgraph.db).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")]
TopOpt = Annotated[int | None, typer.Option("--top", "-k", min=1, max=1000, help="Places in the answer.")]


def _open(store: str | None, quiet: bool) -> HopGraph:
    return HopGraph(store, load_settings(store=store), quiet=quiet)


@app.command()
def index(paths: Annotated[list[str], typer.Argument(help="Files or folders (.txt .md .html .json .jsonl).")],
          store: StoreOpt = None,
          names: Annotated[Path | None, typer.Option("--names", help="Gazetteer CSV: name,aliases,type,id.")] = None,
          quiet: QuietOpt = False) -> None:
    """Add or refresh documents; unchanged content does no work."""
    with _open(store, quiet) as hg:
        report = hg.index(paths, names)
        typer.echo(f"{hg.store.path}: {report.documents} documents read — {report.added} added, "
                   f"{report.updated} updated, {report.unchanged} unchanged, {report.withdrawn} withdrawn; "
                   f"{report.embedded} chunks embedded; {report.names} names "
                   f"({report.names_filtered} filtered), {report.links} links "
                   f"in {report.seconds['total']:.1f} s")


@app.command()
def ask(question: Annotated[str, typer.Argument(help="The question.")],
        mode: Annotated[str, typer.Option("--mode", help="auto (the router picks) | search | local | paths | "
                                                         "global | lazy | drift.")] = "auto",
        method: Annotated[str | None, typer.Option("--method", "-m", help="For --mode search: vector | bm25 | "
                                                   "hybrid, +names, +links; ppr; auto.")] = None,
        top: TopOpt = None, store: StoreOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        quiet: QuietOpt = False) -> None:
    """Answer a question: ranked chunks (showing how each was found), or a cited answer from the
    knowledge graph or its communities. `auto` says which mode it chose and why."""
    from hopgraph.modes import ask as run_ask

    if method is not None and mode == "auto":
        mode = "search"  # a method is a request for plain search
    with _open(store, quiet) as hg:
        asked = run_ask(hg, question, mode, method, top)
    if as_json:
        extra = {"ms": asked.retrieval.ms} if asked.retrieval is not None else {}
        typer.echo(json.dumps(asdict(asked) | extra, indent=2, ensure_ascii=False, default=str))
        return
    typer.echo(f"mode: {asked.mode} ({asked.why})")
    if asked.retrieval is not None and asked.retrieval.hits:
        typer.echo(render_retrieval(asked.retrieval))
    if asked.note:
        typer.echo(f"note: {asked.note}")
    if asked.answer:
        typer.echo(f"\nAnswer ({asked.answer_mode}):\n{asked.answer}")
        typer.echo(f"Citations: {', '.join(f'chunk {c}' for c in asked.citations) or 'none'}")
    if asked.used:
        typer.echo("used: " + ", ".join(f"{k} {v}" for k, v in asked.used.items() if not isinstance(v, list | dict)))


def render_retrieval(retrieval: Retrieval, width: int = 160) -> str:
    lines = []
    for rank, hit in enumerate(retrieval.hits, start=1):
        snippet = " ".join(hit.text.split())
        snippet = snippet if len(snippet) <= width else snippet[: width - 1] + "…"
        lines += [f"{rank}. {hit.title}  [{hit.describe_path()}]  score {hit.score:.4f}", f"   {snippet}"]
    trace = ", ".join(f"{s.stage} {s.ms:.1f}" for s in retrieval.trace)
    lines.append(f"{retrieval.method}: {len(retrieval.hits)} hits in {retrieval.ms:.1f} ms ({trace} ms)")
    return "\n".join(lines)


@app.command("eval")
def eval_(data: Annotated[Path, typer.Option("--data", help="HotpotQA-format records (JSON list or JSONL).")],
          corpus: Annotated[Path | None, typer.Option("--corpus", help="JSON list of {title, text}.")] = None,
          methods: Annotated[str, typer.Option("--methods", help="Comma-separated methods; `local` = local "
                                                                  "search over the no-LLM concept graph.")] =
          "vector,bm25,hybrid,vector+links,hybrid+links,hybrid+names+links",
          top: Annotated[int, typer.Option("--top", "-k", min=1, max=100)] = 5,
          limit: Annotated[int | None, typer.Option("--limit", min=1)] = None,
          store: StoreOpt = None,
          json_out: Annotated[Path | None, typer.Option("--json", help="Write the results here.")] = None,
          names_from: Annotated[str, typer.Option(
              "--names-from", help="Documents' names: titles, or extracted from their text (titles hidden).")
          ] = "titles",
          quiet: QuietOpt = False) -> None:
    """Score retrieval methods on multi-hop questions, per question type."""
    from hopgraph.eval import format_table, run_eval

    result = run_eval(data, corpus, [m.strip() for m in methods.split(",") if m.strip()], top, limit,
                      store, load_settings(), quiet, names_from)
    typer.echo(format_table(result))
    typer.echo(f"index: {json.dumps(result['index_seconds'])}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        typer.echo(f"wrote {json_out}")


@app.command()
def demo(store: StoreOpt = None, quiet: QuietOpt = False) -> None:
    """Index the bundled HotpotQA sample, show a two-hop rescue by links, print the method table."""
    from hopgraph.demo import run_demo

    run_demo(store, quiet, typer.echo)


cli_graph.register(app)
cli_communities.register(app)


def main() -> None:
    try:
        app(standalone_mode=False)
    except HopgraphError as err:
        typer.echo(f"hopgraph: error: {err}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("hopgraph: interrupted; the store is unchanged by the unfinished step", err=True)
        sys.exit(130)
    except (typer.Exit, typer.Abort) as exit_:
        sys.exit(getattr(exit_, "exit_code", 1))
    except Exception as err:  # click usage errors carry their own exit code
        import click

        if isinstance(err, click.ClickException):
            err.show()
            sys.exit(err.exit_code)
        raise


if __name__ == "__main__":
    main()
