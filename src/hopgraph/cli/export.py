"""`hopgraph export`: a graph of the store as GraphML, GEXF or CSV (hopgraph/export/). Registered in app.py."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hopgraph.cli.options import JsonOpt, QuietOpt, StoreOpt, open_hopgraph, print_result
from hopgraph.errors import InputError
from hopgraph.export import FORMATS, WHAT, build_export_graph, default_path, write_export


def export(fmt: Annotated[str, typer.Option("--format", "-f", help=f"{' | '.join(FORMATS)} (csv: a folder with "
                                            "nodes.csv and edges.csv, or a .zip).")] = "graphml",
           what: Annotated[str, typer.Option("--what", help="links (chunks and the name links between them) | kg "
                                             "(entities and relations) | communities (kg with each entity's "
                                             "community per level).")] = "kg",
           out: Annotated[Path | None, typer.Option("--out", "-o", help="Where to write (default: "
                                                    "hopgraph-WHAT.graphml / .gexf / hopgraph-WHAT-csv/).")] = None,
           with_cooccurrence: Annotated[bool, typer.Option("--with-cooccurrence", help="kg, communities: add the "
                                                           "co-occurrence edges (by default only typed "
                                                           "relations).")] = False,
           store: StoreOpt = None, as_json: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Export a graph of the store for Gephi, Neo4j or a spreadsheet (README: "Export")."""
    if fmt not in FORMATS:  # checked before the store opens: a typo costs nothing
        raise InputError(f"unknown --format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if what not in WHAT:
        raise InputError(f"unknown --what {what!r}: choose one of {', '.join(WHAT)}")
    target = out or default_path(what, fmt)
    with open_hopgraph(store, quiet) as hg:
        graph = build_export_graph(hg.store, what, with_cooccurrence)
    written = write_export(graph, fmt, target)
    result = {"format": fmt, "what": what, "nodes": graph.node_count, "edges": graph.edge_count,
              "files": [str(path) for path in written]}
    if as_json:
        print_result("export", result)
        return
    typer.echo(f"{what}: {graph.node_count} nodes, {graph.edge_count} edges → {', '.join(result['files'])}")


def register(app: typer.Typer) -> None:
    app.command()(export)
