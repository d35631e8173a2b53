"""Knowledge-graph commands of the `hopgraph` CLI: extract, import-triples, review-merges, paths,
check, estimate. Registered on the app in app.py."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hopgraph.cli.options import (
    JsonOpt,
    QuietOpt,
    StoreOpt,
    creating_hopgraph,
    logged_run,
    open_hopgraph,
    print_result,
)
from hopgraph.config import load_settings
from hopgraph.errors import HopgraphError
from hopgraph.kg.extractors.llm import nothing_extracted

if TYPE_CHECKING:
    from hopgraph.engine import HopGraph


def import_triples(file: Annotated[Path, typer.Argument(help="CSV: subject,relation,object,source[,date,"
                                                             "subject_type,object_type].")],
                   store: StoreOpt = None, as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Import relations you already have; each edge points at the chunk of its source document."""
    with creating_hopgraph(store, quiet) as hg, logged_run(hg, "import-triples") as log:
        report = hg.import_triples(file)
        log.update(triples=report.triples, skipped=len(report.skipped), entities=report.graph.entities,
                   relations=report.graph.relations)
    if as_json:
        print_result("import-triples", report)
        return
    typer.echo(f"{report.triples} triples imported ({len(report.skipped)} skipped, "
               f"{report.new_documents} new source documents); graph: {report.graph.entities} entities, "
               f"{report.graph.relations} relations, {report.graph.reviews} merges to review")
    for reason in report.skipped[:20]:
        typer.echo(f"  skipped {reason}")


def extract(store: StoreOpt = None, gleanings: Annotated[int | None, typer.Option(min=0, max=5)] = None,
            concepts: Annotated[bool, typer.Option("--concepts", help="The no-LLM graph (spaCy concepts with "
                                                   "co-occurrence edges, and the parser's typed relations), even "
                                                   "with an LLM configured.")] = False,
            backfill: Annotated[bool, typer.Option("--backfill", help="Only what `index` left for later: the "
                                                   "chunks no extractor has read, and a graph rebuild only if a "
                                                   "fact changed (run it after every index; stop and rerun it "
                                                   "at will).")] = False,
            as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Extract entities and relations from every chunk (resumable): typed relations from the dependency
    parse, with the configured LLM's, else with the no-LLM concept graph."""
    from hopgraph.progress import counter

    with open_hopgraph(store, quiet) as hg, logged_run(hg, "extract") as log:
        if backfill:
            log.update(_backfill(hg, False if concepts else None, gleanings, as_json))
            return
        if concepts or not hg.has_llm:
            graph = hg.extract_without_llm()
            log.update(extractor="concepts+parse", entities=graph.entities, relations=graph.relations)
            why = "as asked" if concepts else "no LLM configured"
            if as_json:
                print_result("extract", {"extractor": "concepts+parse", "why": why, "graph": asdict(graph)})
                return
            typer.echo(f"concepts + parse ({why}): {graph.entities} entities, {graph.relations} relations "
                       f"({graph.typed} typed, {graph.relations - graph.typed} co-occurrence)")
            return
        with counter("extracting", quiet) as update:
            report = hg.extract(gleanings=gleanings, progress=update, parse=True)
        if report.failed and not report.extracted:  # a server that is down is an error, not a result
            raise HopgraphError(nothing_extracted(report))
        usage = {step: (u.calls, u.cached, u.tokens_in, u.tokens_out) for step, u in report.usage.items()}
        graph = hg.knowledge_graph
        relations = len(graph.relations)
        log.update(extractor="llm+parse", chunks=report.extracted, failed=len(report.failed),
                   entities=len(graph.entities), relations=relations)
    if as_json:
        print_result("extract", {"extractor": "llm+parse", **asdict(report),
                                 "graph": {"entities": len(graph.entities), "relations": relations}})
        return
    withdrawn = f", {report.withdrawn} withdrawn while being read (skipped)" if report.withdrawn else ""
    typer.echo(f"{report.extracted}/{report.chunks} chunks extracted, {len(report.failed)} failed{withdrawn}, "
               f"{report.skipped} items skipped; {report.entities} entities, {report.relations} relations "
               f"from the LLM; {relations} relations in the graph with the parser's")
    typer.echo(f"LLM usage (calls, cached, tokens in, tokens out): {usage}")
    for chunk_id, error in report.failed[:10]:
        typer.echo(f"  chunk {chunk_id} failed: {error}")
    if report.stopped:
        typer.echo(f"stopped before the last chunk: {report.stopped}; run `hopgraph extract` again to go on")


def _backfill(hg: HopGraph, use_llm: bool | None, gleanings: int | None, as_json: bool) -> dict[str, Any]:
    """Runs the backfill, prints what it did, and returns that for the run log."""
    from hopgraph.kg.backfill import backfill

    done = backfill(hg, use_llm, gleanings)
    summary = {"extractor": "backfill", "chunks": done.llm.extracted if done.llm else 0,
               "graph_rebuilt": done.graph is not None}
    if as_json:
        print_result("extract", {"extractor": "backfill", **asdict(done)})
        return summary
    if done.llm is not None:
        typer.echo(f"backfill: {done.llm.extracted}/{done.llm.chunks} pending chunks extracted by the LLM, "
                   f"{len(done.llm.failed)} failed (asked again next run)")
        for chunk_id, error in done.llm.failed[:10]:
            typer.echo(f"  chunk {chunk_id} failed: {error}")
        if done.llm.stopped:
            typer.echo(f"stopped before the last chunk: {done.llm.stopped}")
    resumed = " (an earlier run had stopped before its rebuild)" if done.resumed else ""
    typer.echo(f"graph rebuilt{resumed}: {done.graph.entities} entities, {done.graph.relations} relations"
               if done.graph else "no fact changed: the graph is as it was")
    return summary


def review_merges(store: StoreOpt = None,
                  accept: Annotated[list[int] | None, typer.Option("--accept", help="Review ids to merge.")] = None,
                  reject: Annotated[list[int] | None, typer.Option("--reject", help="Review ids to keep apart.")]
                  = None,
                  as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """List merges waiting for a person, or accept / reject them (the graph is rebuilt)."""
    with open_hopgraph(store, quiet) as hg:
        decided = [(i, True) for i in accept or []] + [(i, False) for i in reject or []]
        unknown = [review_id for review_id, verdict in decided if not hg.store.decide_merge(review_id, verdict)]
        for review_id in unknown:
            typer.echo(f"no merge review with id {review_id}", err=True)
        report = hg.build_graph() if decided else None
        reviews = hg.store.merge_reviews("pending")
    if as_json:
        print_result("review-merges", {"accepted": accept or [], "rejected": reject or [], "unknown": unknown,
                                       "graph": asdict(report) if report else None,
                                       "pending": [asdict(review) for review in reviews]})
        return
    if report:
        typer.echo(f"graph rebuilt: {report.entities} entities, {report.relations} relations")
    for review in reviews:
            typer.echo(f"{review.id:>4}  {review.type:<10} {review.score:.3f}  {review.a!r} ~ {review.b!r}")


def paths(to: Annotated[str, typer.Option("--to", help="The entity the paths lead to (or from).")],
          direction: Annotated[str, typer.Option("--direction", help="in | out")] = "in",
          max_hops: Annotated[int, typer.Option("--max-hops", min=1, max=6)] = 2,
          max_paths: Annotated[int, typer.Option("--max-paths", min=1, max=10000)] = 200,
          end_type: Annotated[str | None, typer.Option("--end-type", help="Keep paths whose far end has this type.")]
          = None,
          follow: Annotated[str | None, typer.Option("--follow", help="Relations to walk, e.g. "
                                                     "'SUPPLIES:reverse,USES,LOCATED_IN', or a preset: "
                                                     "'depends-on' (the default: a buyer on its supplier, a "
                                                     "firm on its plant's town), 'all' (every relation forward).")]
          = None,
          as_of: Annotated[str | None, typer.Option("--as-of", help="Only relations holding on this date.")] = None,
          store: StoreOpt = None, as_json: Annotated[bool, typer.Option("--json")] = False,
          quiet: QuietOpt = False) -> None:
    """Every relation path into (or out of) an entity, with the chunk that states each hop."""
    from hopgraph.query.paths import parse_follow
    from hopgraph.query.writers import extractive_from_paths

    with open_hopgraph(store, quiet) as hg:
        found = hg.paths(to, direction, max_hops, max_paths, end_type, parse_follow(follow), as_of)
        if as_json:
            typer.echo(json.dumps([[hop.as_dict() for hop in path] for path in found], indent=2, ensure_ascii=False))
            return
        texts = hg.chunk_texts({hop.chunk_id for path in found for hop in path})
        typer.echo(extractive_from_paths(found, texts, hg.knowledge_graph).text)
        typer.echo(f"{len(found)} path(s)")


def check(chains: Annotated[Path, typer.Argument(help="Known chains, one a line: A -> B -> C, or "
                                                     "A -[SUPPLIES:reverse]-> B.")],
          as_of: Annotated[str | None, typer.Option("--as-of", help="Check the facts of this date.")] = None,
          store: StoreOpt = None, as_json: Annotated[bool, typer.Option("--json")] = False,
          quiet: QuietOpt = False) -> None:
    """Which known chains still hold, which broke, at which hop and since which document; exit 1 when
    one broke (for a nightly job)."""
    from hopgraph.ingest.readers import read_text_file

    with open_hopgraph(store, quiet) as hg:
        checks = hg.check_chains(read_text_file(chains), as_of, str(chains))
    if as_json:
        typer.echo(json.dumps([{"line": c.chain.line, "chain": c.chain.text, "holds": c.holds, "broken_at": c.broken_at,
                                "reason": c.reason, "since": c.since} for c in checks], indent=2, ensure_ascii=False))
    for c in [] if as_json else checks:
        where = f" (stated in {', '.join(c.since)})" if c.since else ""
        typer.echo(f"holds   {c.chain.text}" if c.holds else
                   f"BROKEN  {c.chain.text}\n        at hop {c.broken_at} ({c.chain.hops[c.broken_at - 1]}): "
                   f"{c.reason}{where}")
    broken = sum(not c.holds for c in checks)
    if not as_json:
        typer.echo(f"{len(checks) - broken} of {len(checks)} chain(s) hold")
    if broken:
        raise typer.Exit(1)


def estimate(paths_: Annotated[list[str], typer.Argument(metavar="PATH...", help="Files or folders to extract.")],
             gleanings: Annotated[int | None, typer.Option(min=0, max=5)] = None,
             out_tokens: Annotated[int, typer.Option("--out-tokens", help="Assumed output tokens per call.")] = 350,
             price_in: Annotated[float | None, typer.Option("--price-in", help="Price per 1M input tokens.")] = None,
             price_out: Annotated[float | None, typer.Option("--price-out", help="Price per 1M output tokens.")] = None,
             as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """What LLM extraction of these files would cost, before anything is spent."""
    from hopgraph.cli.render import render_skips
    from hopgraph.ingest.pipeline import read_paths
    from hopgraph.kg.estimate import estimate as run_estimate

    settings = load_settings()
    rounds = settings.gleanings if gleanings is None else gleanings
    read = read_paths(paths_, quiet)
    for line in render_skips(read.skipped):
        typer.echo(line, err=True)
    result = run_estimate(read.documents, settings, rounds, out_tokens)
    priced = price_in is not None or price_out is not None
    if as_json:
        cost = result.cost(price_in or 0.0, price_out or 0.0) if priced else None
        print_result("estimate", {**asdict(result), "gleanings": rounds, "price_in": price_in,
                                  "price_out": price_out, "cost": cost})
        return
    typer.echo(f"{result.documents} documents, {result.chunks} chunks → {result.calls} LLM calls "
               f"({1 + rounds} per chunk); ≈ {result.tokens_in:,} input tokens, ≈ {result.tokens_out:,} output "
               f"tokens (assuming {out_tokens} per call)")
    if priced:
        typer.echo(f"≈ {result.cost(price_in or 0.0, price_out or 0.0):.4f} at {price_in or 0}/{price_out or 0} "
                   f"per million input/output tokens")


def register(app: typer.Typer) -> None:
    app.command("import-triples")(import_triples)
    app.command()(extract)
    app.command("review-merges")(review_merges)
    app.command()(paths)
    app.command()(check)
    app.command()(estimate)
