"""Community commands of the `hopgraph` CLI: communities (the Leiden tree) and reports.
Registered on the app in app.py."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer

from hopgraph.cli.options import JsonOpt, QuietOpt, StoreOpt, logged_run, open_hopgraph, print_result
from hopgraph.records.documents import utc_now


def communities(store: StoreOpt = None,
                rebuild: Annotated[bool, typer.Option("--rebuild", help="Partition the graph again.")] = False,
                if_changed: Annotated[bool, typer.Option("--if-changed", help="After the graph changed, run Leiden "
                                                         "again only if more than --threshold of its entities "
                                                         "changed; else keep the previous partition.")] = False,
                threshold: Annotated[float, typer.Option("--threshold", min=0.0, max=1.0)] = 0.1,
                as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
                quiet: QuietOpt = False) -> None:
    """Hierarchical Leiden communities of the knowledge graph: levels, counts and sizes."""
    with open_hopgraph(store, quiet) as hg:
        started = utc_now()
        tree = hg.communities(rebuild=rebuild, if_changed=threshold if if_changed else None)
        stats = tree.stats()
        stats["how"] = tree.how or "stored (the graph has not changed since it was built)"
        if tree.how:  # built (or carried over) and stored by this run, not read back
            hg.store.record_run("communities", started, {k: stats[k] for k in ("communities", "levels", "how")})
        if as_json:
            print_result("communities", stats)
            return
        typer.echo(f"{stats['communities']} communities in {stats['levels']} level(s) "
                   f"(max size {hg.settings.community_max_size}; built in {tree.seconds:.2f} s): {stats['how']}")
        for level in stats["per_level"]:  # type: ignore[attr-defined]
            typer.echo(f"  level {level['level']}: {level['communities']} communities, sizes "
                       f"{level['min']}–{level['max']} (median {level['median']})")


def reports(store: StoreOpt = None,
            llm: Annotated[bool | None, typer.Option("--llm/--extractive", help="Write reports with the "
                                                     "configured LLM, or extractively (default: LLM if configured).")]
            = None,
            estimate: Annotated[bool, typer.Option("--estimate", help="Print the LLM calls and tokens reports "
                                                   "would cost, and stop.")] = False,
            show: Annotated[int, typer.Option("--show", min=0, help="Print the N most important reports.")] = 3,
            as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """A report per community (labels, title, summary, findings with chunk citations, importance 0-10)."""
    from hopgraph.communities.reports import estimate_report_tokens
    from hopgraph.progress import counter

    with open_hopgraph(store, quiet) as hg:
        if estimate:
            cost = estimate_report_tokens(hg.knowledge_graph, hg.communities(), hg.chunk_texts,
                                          hg.settings.report_tokens)
            if as_json:
                print_result("reports", {"estimate": cost, "report_tokens": hg.settings.report_tokens})
                return
            typer.echo(f"{cost['calls']} LLM calls, ≈ {cost['tokens_in']:,} input and ≈ {cost['tokens_out']:,} "
                       f"output tokens (at most {hg.settings.report_tokens} tokens of material per report)")
            return
        with logged_run(hg, "reports") as log, counter("reports", quiet) as update:
            run = hg.reports(use_llm=llm, progress=update)
            log.update(reports=len(run.reports), reused=run.reused, failed=len(run.failed), dropped=run.dropped,
                       written=len(run.reports) - run.reused - len(run.failed))
        if as_json:  # every report, most important first (what --show would print, all of it)
            ranked = sorted(run.reports, key=lambda r: (-r.rating, r.level, r.community_id))
            print_result("reports", {**asdict(run), "reports": [asdict(r) for r in ranked],
                                     "written": len(run.reports) - run.reused - len(run.failed)})
            return
        writer = run.reports[0].model if run.reports else "-"
        typer.echo(f"{len(run.reports)} reports ({writer}): {run.reused} reused, "
                   f"{len(run.reports) - run.reused - len(run.failed)} written, {run.dropped} dropped "
                   f"(communities gone); {len(run.failed)} failed; {run.from_children} written from "
                   f"sub-community reports")
        for community_id, error in run.failed[:10]:
            typer.echo(f"  community {community_id} failed: {error}")
        for report in sorted(run.reports, key=lambda r: (-r.rating, r.level, r.community_id))[:show]:
            typer.echo(f"\n[community {report.community_id}, level {report.level}, rating {report.rating}]")
            typer.echo(f"Labels: {' · '.join(report.labels or [])}")
            typer.echo(report.text())


def register(app: typer.Typer) -> None:
    app.command()(communities)
    app.command()(reports)
