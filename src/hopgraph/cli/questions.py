"""The commands of the retrieval core: index documents, ask a question, evaluate on a QA set."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from hopgraph.cli.options import NamesFromOpt, QuietOpt, StoreOpt, TopOpt, open_hopgraph
from hopgraph.cli.render import describe_names, render_asked, render_skips
from hopgraph.config import load_settings


def index(paths: Annotated[list[str], typer.Argument(help="Files or folders (.txt .md .html .json .jsonl "
                                                         ".pdf .docx).")],
          store: StoreOpt = None,
          names: Annotated[Path | None, typer.Option("--names", help="Gazetteer CSV: name,aliases,type,id.")] = None,
          names_from: NamesFromOpt = None,
          quiet: QuietOpt = False) -> None:
    """Add or refresh documents; unchanged content does no work. A file that cannot be read is
    skipped with a line saying why (on stderr); when every file is, nothing is written (exit 2)."""
    with open_hopgraph(store, quiet, create=True, names_from=names_from) as hg:
        report = hg.index(paths, names)
        for line in render_skips(report.skipped):
            typer.echo(line, err=True)
        skipped = f"{len(report.skipped)} file{'' if len(report.skipped) == 1 else 's'} skipped"
        typer.echo(f"{hg.store.location}: {report.documents} documents read, {skipped} — {report.added} added, "
                   f"{report.updated} updated, {report.unchanged} unchanged, {report.withdrawn} withdrawn; "
                   f"{report.embedded} chunks embedded; {report.names} names "
                   f"({report.names_filtered} filtered), {report.links} links "
                   f"in {report.seconds['total']:.1f} s")
        if report.names_from:
            typer.echo(describe_names(report))


def ask(question: Annotated[str, typer.Argument(help="The question.")],
        mode: Annotated[str, typer.Option("--mode", help="auto (the router picks) | search | local | paths | "
                                                         "global | lazy | drift.")] = "auto",
        method: Annotated[str | None, typer.Option("--method", "-m", help="For --mode search: vector | bm25 | "
                                                   "hybrid, +names, +links; ppr; auto.")] = None,
        top: TopOpt = None, store: StoreOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        no_answer: Annotated[bool, typer.Option("--no-answer", help="Search: the ranked chunks only, no "
                                                                    "extractive answer.")] = False,
        quiet: QuietOpt = False) -> None:
    """Answer a question with citations: from the best sentences of ranked chunks (showing how each
    was found), or from the knowledge graph or its communities. `auto` says which mode it chose and why."""
    with open_hopgraph(store, quiet) as hg:
        asked = hg.ask(question, mode, method, top, answer=not no_answer)
    if as_json:
        extra = {"ms": asked.retrieval.ms} if asked.retrieval is not None else {}
        typer.echo(json.dumps(asdict(asked) | extra, indent=2, ensure_ascii=False, default=str))
    else:
        typer.echo(render_asked(asked))


def eval_(data: Annotated[Path, typer.Option("--data", help="HotpotQA-format records (JSON list or JSONL).")],
          corpus: Annotated[Path | None, typer.Option("--corpus", help="JSON list of {title, text}.")] = None,
          methods: Annotated[str, typer.Option("--methods", help="Comma-separated methods; `local` = local "
                                                                  "search over the no-LLM concept graph.")] =
          "vector,bm25,hybrid,vector+links,hybrid+links,hybrid+names+links",
          top: Annotated[int, typer.Option("--top", "-k", min=1, max=100)] = 5,
          limit: Annotated[int | None, typer.Option("--limit", min=1)] = None,
          store: StoreOpt = None,
          json_out: Annotated[Path | None, typer.Option("--json", help="Write the results here.")] = None,
          names_from: NamesFromOpt = None,
          answers: Annotated[bool, typer.Option("--answers", help="Also score the offline extractive answers: "
                                                                  "is the gold answer inside them?")] = False,
          quiet: QuietOpt = False) -> None:
    """Score retrieval methods on multi-hop questions, per question type."""
    from hopgraph.eval import format_table, run_eval

    result = run_eval(data, corpus, [m.strip() for m in methods.split(",") if m.strip()], top, limit,
                      store, load_settings(names_from=names_from), quiet, answers)
    typer.echo(format_table(result))
    typer.echo(f"index: {json.dumps(result['index_seconds'])}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        typer.echo(f"wrote {json_out}")


def register(app: typer.Typer) -> None:
    app.command()(index)
    app.command()(ask)
    app.command("eval")(eval_)
