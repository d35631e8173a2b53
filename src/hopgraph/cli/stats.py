"""`hopgraph stats`: what the store holds, its size on disk and its last runs. Registered in app.py.

The counting is the store's (`StatsStore`, written once in store/sql/stats.py); `store_stats` adds
what lies beside the store: the search snapshot folder, which belongs to retrieval (retrieval/snapshot.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hopgraph.cli.options import JsonOpt, QuietOpt, StoreOpt, open_hopgraph, print_result
from hopgraph.records.stats import StoredRun, StoreStats
from hopgraph.retrieval.snapshot import snapshot_root
from hopgraph.store import Store
from hopgraph.store.backends import backend_for

RUNS_SHOWN = 5


def stats(store: StoreOpt = None,
          runs: Annotated[int, typer.Option("--runs", min=0, max=100, help="Last runs to show.")] = RUNS_SHOWN,
          as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Documents, chunks, names, links, entities, relations, communities, size on disk, last runs."""
    with open_hopgraph(store, quiet) as hg:
        found = store_stats(hg.store, runs)
    if as_json:
        print_result("stats", found.to_json())
        return
    typer.echo("\n".join(render_stats(found)))


def store_stats(store: Store, runs: int = RUNS_SHOWN) -> StoreStats:
    meta, counts = store.meta(), store.counts()
    sizes = store.disk_bytes() | {"search_snapshot": folder_bytes(snapshot_root(store.location))}
    current = sum(r.holds_on() for r in store.knowledge_graph().relations) if counts.relations else 0
    # `location` is what messages show (a URL without its password); its scheme names the backend
    return StoreStats(store.location, backend_for(store.location).name, counts, sizes, meta.get("generation", ""),
                      meta.get("embedder", ""), store.recent_runs(runs), current)


def folder_bytes(folder: Path | None) -> int:
    """Bytes of every file under the folder (0 when there is none)."""
    if folder is None or not folder.is_dir():
        return 0
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def render_stats(found: StoreStats) -> list[str]:
    c = found.counts
    lines = [f"{found.location} ({found.backend})",
             f"  documents  {c.documents:,} ({c.withdrawn_documents:,} withdrawn)",
             f"  chunks     {c.chunks:,} ({c.extracted_chunks:,} with extracted facts)",
             f"  names      {c.names:,} ({c.names_filtered:,} filtered)",
             f"  links      {c.links:,}",
             f"  entities   {c.entities:,} ({c.pending_merges:,} merges to review)",
             f"  relations  {c.relations:,} ({found.current_relations:,} hold today, {c.superseded_relations:,} "
             "superseded)",
             f"  communities {c.communities:,} in {c.community_levels} level(s), {c.reports:,} reports kept",
             "  on disk    " + ", ".join(f"{part} {_size(n)}" for part, n in found.bytes.items())
             + f"; total {_size(found.total_bytes)}"]
    if found.runs:
        lines.append("last runs:")
    for run in found.runs:
        lines.append(f"  {run.id:>4}  {run.command:<14} {run.started_at} → {run.finished_at}  {_what(run)}")
    return lines


def _what(run: StoredRun) -> str:
    """An index or remove run's document counts; another command's summary as it logged it."""
    report = run.stats
    if run.command in ("index", "remove"):
        return (f"{report.get('documents', 0)} documents read, {report.get('added', 0)} added, "
                f"{report.get('updated', 0)} updated, {report.get('withdrawn', 0)} withdrawn" if report else "")
    return ", ".join(f"{key} {value}" for key, value in report.items())


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    return f"{count} B"


def register(app: typer.Typer) -> None:
    app.command()(stats)
