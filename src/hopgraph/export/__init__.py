"""Graph export: the name-link graph, the knowledge graph or its communities as GraphML, GEXF or CSV
(graphs.py builds them from the store, writers.py writes them)."""

from hopgraph.export.graphs import WHAT, ExportGraph, build_export_graph
from hopgraph.export.writers import FORMATS, default_path, write_export

__all__ = ["FORMATS", "WHAT", "ExportGraph", "build_export_graph", "default_path", "write_export"]
