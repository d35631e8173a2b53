"""Writing an export graph (graphs.py) as GraphML, GEXF or CSV; every file appears whole or not at all.

- GraphML and GEXF: networkx's writers (`write_graphml`, `write_gexf`, GEXF 1.2) over one
  MultiDiGraph. Node ids are the nodes' keys (`chunk:12`, `entity:3`), `label` is the node's and
  edge's label; an integer attribute stays an integer (GraphML `long`; igraph's writer made every
  number a `double`, so ids read back as 12.0).
- CSV: `nodes.csv` (`key`, then the node attributes) and `edges.csv` (`source`, `target` — node keys —
  then the edge attributes), in a folder, or in one zip file when the path ends in `.zip`.

Each file is written to a temporary name beside it and renamed into place, so an interrupted or
failed export leaves any earlier file as it was.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopgraph.errors import HopgraphError
from hopgraph.export.graphs import ExportGraph, Value

FORMATS = ("graphml", "gexf", "csv")
SUFFIXES = {"graphml": ".graphml", "gexf": ".gexf", "csv": ""}  # csv: a folder


def default_path(what: str, fmt: str) -> Path:
    """`hopgraph-kg.graphml`, `hopgraph-links.gexf`, `hopgraph-kg-csv/` in the working folder."""
    return Path(f"hopgraph-{what}{SUFFIXES[fmt]}" if fmt != "csv" else f"hopgraph-{what}-csv")


def write_export(graph: ExportGraph, fmt: str, out: Path) -> list[Path]:
    """Write the graph; returns the files written. An unknown format or a path that cannot be
    written is an error naming it."""
    writers = {"graphml": write_graphml, "gexf": write_gexf, "csv": write_csv}
    if fmt not in writers:
        raise HopgraphError(f"unknown export format {fmt!r}: choose one of {', '.join(FORMATS)}")
    try:
        return writers[fmt](graph, out)
    except OSError as err:
        raise HopgraphError(f"cannot write the export to {out}: {err.strerror or err}") from None


def write_graphml(graph: ExportGraph, out: Path) -> list[Path]:
    import networkx

    with _replacing(out) as temporary:
        networkx.write_graphml(_networkx_graph(graph), temporary)
    return [out]


def write_gexf(graph: ExportGraph, out: Path) -> list[Path]:
    import networkx

    with _replacing(out) as temporary:
        networkx.write_gexf(_networkx_graph(graph, edge_ids=True), temporary)
    return [out]


def _networkx_graph(graph: ExportGraph, edge_ids: bool = False) -> Any:
    """The export as a networkx MultiDiGraph keyed by node keys. `edge_ids`: an `id` per edge, which
    GEXF takes as the edge's id (GraphML writes the edge key as its id itself)."""
    import networkx

    g = networkx.MultiDiGraph()
    keys = [str(k) for k in graph.nodes["key"]]
    attrs = {name: column for name, column in graph.nodes.items() if name != "key"}
    g.add_nodes_from((key, {name: column[i] for name, column in attrs.items()}) for i, key in enumerate(keys))
    for k, (s, t) in enumerate(graph.edges):
        data = {name: column[k] for name, column in graph.edge_attrs.items()}
        g.add_edge(keys[s], keys[t], k, **({"id": str(k)} if edge_ids else {}), **data)
    return g


def write_csv(graph: ExportGraph, out: Path) -> list[Path]:
    keys = graph.nodes["key"]
    node_names = [n for n in graph.nodes if n != "key"]
    nodes = [["key", *node_names]] + [[keys[i], *(graph.nodes[n][i] for n in node_names)]
                                      for i in range(graph.node_count)]
    edge_names = list(graph.edge_attrs)
    edges = [["source", "target", *edge_names]] + [[keys[s], keys[t], *(graph.edge_attrs[n][k] for n in edge_names)]
                                                   for k, (s, t) in enumerate(graph.edges)]
    tables = {"nodes.csv": _csv_text(nodes), "edges.csv": _csv_text(edges)}
    if out.suffix.lower() == ".zip":
        with _replacing(out) as temporary, zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in tables.items():
                archive.writestr(name, text)
        return [out]
    if out.exists() and not out.is_dir():
        raise HopgraphError(f"cannot write the CSV export to {out}: it is a file; CSV export writes a folder "
                            "(nodes.csv, edges.csv), or a zip when the path ends in .zip")
    out.mkdir(parents=True, exist_ok=True)
    for name, text in tables.items():
        with _replacing(out / name) as temporary:
            temporary.write_text(text, encoding="utf-8", newline="")
    return [out / name for name in tables]


def _csv_text(rows: list[list[Value]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerows([[_cell(v) for v in row] for row in rows])
    return buffer.getvalue()


def _cell(value: Value) -> str | int | float:
    """Booleans as GraphML writes them (`true`/`false`), not Python's `True`."""
    return str(value).lower() if isinstance(value, bool) else value


@contextlib.contextmanager
def _replacing(out: Path) -> Iterator[Path]:
    """A temporary path beside `out`, renamed onto it when the block succeeds, removed when it fails."""
    if out.is_dir():
        raise HopgraphError(f"cannot write the export to {out}: it is a folder; give a file name")
    out.parent.mkdir(parents=True, exist_ok=True)
    # A fresh name the writer creates itself (not mkstemp's 0600 file): the export gets the umask's mode.
    temporary = out.with_name(f".{out.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        yield temporary
        os.replace(temporary, out)
    finally:
        temporary.unlink(missing_ok=True)
