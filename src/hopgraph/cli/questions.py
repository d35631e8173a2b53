"""The commands of the retrieval core: index documents, ask a question, evaluate on a QA set."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from hopgraph.cli.options import (
    JsonOpt,
    NamesFromOpt,
    QuietOpt,
    SearchInOpt,
    StoreOpt,
    TopOpt,
    creating_hopgraph,
    open_hopgraph,
    print_result,
)
from hopgraph.cli.render import describe_names, render_asked, render_skips
from hopgraph.config import load_settings
from hopgraph.errors import InputError
from hopgraph.ingest import readers
from hopgraph.query.modes import describe_modes
from hopgraph.records.answers import Answer
from hopgraph.retrieval.methods import METHODS, method_help

RETRIEVAL_METHODS = ",".join(METHODS)  # what `eval` scores when given no --methods
CLAIM_METHODS = "vector,bm25,hybrid,hybrid+links,hybrid+names+links,ppr,auto"  # the novel table's methods


def index(paths: Annotated[list[str], typer.Argument(help=f"Files or folders: {readers.described()}.")],
          store: StoreOpt = None,
          names: Annotated[Path | None, typer.Option("--names", help="Gazetteer CSV: name,aliases,type,id.")] = None,
          names_from: NamesFromOpt = None,
          follow_links: Annotated[bool, typer.Option("--follow-links", help="Index a folder's links to files "
                                                     "outside it too.")] = False,
          reembed: Annotated[bool, typer.Option("--reembed", help="Embed every chunk again, e.g. when the "
                                                "store's vectors were made by other weights.")] = False,
          as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Add or refresh documents; unchanged content does no work. A folder is the truth: its files
    deleted or renamed since the last run are withdrawn. A file that cannot be read is skipped with
    a line saying why (on stderr); when every file is, nothing is written (exit 2)."""
    with creating_hopgraph(store, quiet, names_from=names_from) as hg:
        report = hg.index(paths, names, follow_links, reembed)
        for line in render_skips(report.skipped):
            typer.echo(line, err=True)
        if as_json:  # the skips are in it too, and stay on stderr
            print_result("index", {"store": hg.store.location, **asdict(report)})
            return
        skipped = f"{len(report.skipped)} file{'' if len(report.skipped) == 1 else 's'} skipped"
        typer.echo(f"{hg.store.location}: {report.documents} documents read, {skipped} — {report.added} added, "
                   f"{report.updated} updated, {report.unchanged} unchanged, {report.withdrawn} withdrawn; "
                   f"{report.embedded} chunks embedded; {report.names} names "
                   f"({report.names_filtered} filtered), {report.links} links "
                   f"in {report.seconds['total']:.1f} s")
        if report.names_from:
            typer.echo(describe_names(report))


def remove(targets: Annotated[list[str], typer.Argument(help="Document ids, files or folders.")],
           store: StoreOpt = None, as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Withdraw documents: their chunks, the vectors of texts no other chunk holds, keyword entries and
    links, and the relations only they stated. A target that names no indexed document is an error,
    and nothing is withdrawn."""
    with open_hopgraph(store, quiet) as hg:
        report = hg.remove(targets)
        if as_json:
            print_result("remove", {"store": hg.store.location, **asdict(report)})
            return
        typer.echo(f"{hg.store.location}: {report.withdrawn} documents withdrawn; {report.names} names, "
                   f"{report.links} links in {report.seconds['total']:.1f} s")


def ask(question: Annotated[str, typer.Argument(help="The question.")],
        mode: Annotated[str, typer.Option("--mode", help=describe_modes() + ".")] = "auto",
        method: Annotated[str | None, typer.Option("--method", "-m",
                                                   help=f"For --mode search: {method_help()}.")] = None,
        top: TopOpt = None, store: StoreOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        no_answer: Annotated[bool, typer.Option("--no-answer", help="Search: the ranked chunks only, no "
                                                                    "extractive answer.")] = False,
        no_stream: Annotated[bool, typer.Option("--no-stream", help="With an LLM: print the answer once it is "
                                                "whole, not as the model writes it.")] = False,
        search_in: SearchInOpt = None, quiet: QuietOpt = False) -> None:
    """Answer a question with citations: from the best sentences of ranked chunks (showing how each
    was found), or from the knowledge graph or its communities. `auto` says which mode it chose and why.
    With an LLM, search's answer is printed as the model writes it, its checked citations after it."""
    with open_hopgraph(store, quiet, search_in=search_in) as hg:
        printer = None if as_json or quiet or no_stream else StreamedAnswer(hg.settings.llm_model)
        asked = hg.ask(question, mode, method, top, answer=not no_answer,
                       found=printer.found if printer else None, on_token=printer.token if printer else None)
    if as_json:  # one schema for every mode: records/answers.py `Answer.to_json`, README "ask --json"
        typer.echo(json.dumps(asked.to_json(), indent=2, ensure_ascii=False, default=str))
    elif printer and printer.shown:
        typer.echo()  # the streamed text ends its line
        typer.echo(render_asked(asked, streamed="".join(printer.shown)))
    else:
        typer.echo(render_asked(asked))


class StreamedAnswer:
    """Prints search's answer as the LLM writes it: before its first piece, the mode line and the
    answer's heading (what `render_asked` would have put above it). Nothing without an LLM."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.route = ""
        self.shown: list[str] = []

    def found(self, partial: Answer) -> None:
        self.route = f"mode: {partial.mode} ({partial.why})"

    def token(self, piece: str) -> None:
        if not self.shown:
            typer.echo(f"{self.route}\nAnswer (llm:{self.model}):")
        typer.echo(piece, nl=False)  # click flushes: the piece is on the screen now
        self.shown.append(piece)


def eval_(data: Annotated[Path, typer.Option("--data", help="HotpotQA-format records, or evidence-claim records "
                                                      "({id, source, question, type, evidence}); JSON list or JSONL.")],
          corpus: Annotated[Path | None, typer.Option("--corpus", help="JSON list of {title, text}.")] = None,
          methods: Annotated[str | None, typer.Option("--methods", help="Comma-separated. Retrieval: "
                                                      f"{RETRIEVAL_METHODS} (`local` = local search over the "
                                                      "no-LLM concept graph). With --answers: none, hybrid, "
                                                      "auto, iterative, short (the no-LLM short answer "
                                                      "of auto's hits); on a claim set with reference "
                                                      "answers: hybrid, auto, iterative.")] = None,
          top: Annotated[int, typer.Option("--top", "-k", min=1, max=100)] = 5,
          limit: Annotated[int | None, typer.Option("--limit", min=1)] = None,
          store: StoreOpt = None,
          json_out: Annotated[Path | None, typer.Option("--json", help="Write the results here.")] = None,
          names_from: NamesFromOpt = None,
          answers: Annotated[bool, typer.Option("--answers", help="Score answers (exact match, token F1) "
                                                                  "instead of retrieval; on a claim set, "
                                                                  "answers graded by the LLM against "
                                                                  "the reference answers.")] = False,
          record: Annotated[Path | None, typer.Option("--record", help="With --answers: also write every LLM "
                                                                       "reply used to this file.")] = None,
          replay: Annotated[Path | None, typer.Option("--replay", help="With --answers: answer from replies "
                                                                       "recorded with --record (no server).")] = None,
          half: Annotated[str | None, typer.Option("--half", help="a | b: only the questions of that held-out half "
                                                   "(a stable hash of the id; of the source for claim sets).")] = None,
          judge: Annotated[str, typer.Option("--judge", help="Evidence-claim sets: lexical (80 %% of a claim's "
                                             "words in one chunk) or llm (the configured model judges each "
                                             "claim; cached, resumable).")] = "lexical",
          quiet: QuietOpt = False) -> None:
    """Score retrieval methods on multi-hop questions, per question type; with --answers, score
    the answers themselves (exact match and F1, with the LLM calls, tokens and seconds per question).
    On an evidence-claim set, score the share of each question's claims found in the top-k chunks."""
    from hopgraph.eval import format_table, run_eval
    from hopgraph.eval.answers import ANSWER_METHODS, format_answer_table, run_answer_eval
    from hopgraph.eval.claim_answers import format_claim_answer_table, run_claim_answer_eval
    from hopgraph.eval.claims import format_claim_table, is_claim_set, run_claim_eval
    from hopgraph.eval.halves import check_half

    if (record or replay) and not answers:
        raise InputError("--record and --replay go with --answers")
    half = check_half(half)
    settings = load_settings(names_from=names_from)
    if is_claim_set(data):
        if answers:  # answers written and graded against the set's reference answers
            result = run_claim_answer_eval(data, corpus, _split(methods) or ["hybrid", "auto"], top, limit, store,
                                           settings, quiet, half, record, replay)
            typer.echo(format_claim_answer_table(result))
            _said_recorded(result, record)
        else:
            result = run_claim_eval(data, corpus, _split(methods) or _split(CLAIM_METHODS), top, limit, store,
                                    settings, quiet, half, judge)
            typer.echo(format_claim_table(result))
    elif answers:
        chosen = _split(methods) or list(ANSWER_METHODS)
        result = run_answer_eval(data, corpus, chosen, top, limit, store, settings, quiet, record, replay, half)
        typer.echo(format_answer_table(result))
        _said_recorded(result, record)
    else:
        result = run_eval(data, corpus, _split(methods or RETRIEVAL_METHODS), top, limit, store, settings, quiet,
                          half)
        typer.echo(format_table(result))
    typer.echo(f"index: {json.dumps(result['index_seconds'])}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        typer.echo(f"wrote {json_out}")


def _said_recorded(result: dict, record: Path | None) -> None:
    if result["replies_recorded"] is not None:
        typer.echo(f"recorded {result['replies_recorded']} replies to {record}")


def _split(methods: str | None) -> list[str]:
    return [m.strip() for m in (methods or "").split(",") if m.strip()]


def register(app: typer.Typer) -> None:
    app.command()(index)
    app.command()(remove)
    app.command()(ask)
    app.command("eval")(eval_)
