"""The supplier graph written as GraphML, GEXF and CSV reads back with the store's node and edge
counts and attributes (GraphML with igraph, GEXF with networkx, CSV with the csv module)."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

import igraph
import networkx
import pytest

from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.export import build_export_graph, write_export
from hopgraph.export.graphs import ExportGraph

KG_NODE_ATTRS = {"key", "label", "kind", "entity", "type", "description", "aliases", "chunks", "documents",
                 "document_titles"}
KG_EDGE_ATTRS = {"relation", "label", "relation_id", "description", "source_chunk", "source_chunks", "weight",
                 "valid_from", "valid_until", "superseded_by", "current", "documents", "document_titles"}


def store_edges(hg: HopGraph) -> set[tuple[str, str, str]]:
    kg = hg.knowledge_graph
    return {(kg.entities[r.source].name, kg.entities[r.target].name, r.relation) for r in kg.relations}


def test_the_supplier_graph_as_graphml_reads_back_in_igraph_with_the_same_counts(suppliers: HopGraph,
                                                                                 tmp_path: Path) -> None:
    out = tmp_path / "suppliers.graphml"
    write_export(build_export_graph(suppliers.store, "kg"), "graphml", out)
    read = igraph.Graph.Read_GraphML(str(out))
    kg = suppliers.knowledge_graph
    assert (read.vcount(), read.ecount()) == (len(kg.entities), len(kg.relations))
    assert read.is_directed()
    # the key is the GraphML node id, which igraph reads as `id`
    assert set(read.vs.attributes()) >= KG_NODE_ATTRS - {"key"} | {"id"}
    assert set(read.es.attributes()) >= KG_EDGE_ATTRS
    assert {(read.vs[e.source]["label"], read.vs[e.target]["label"], e["relation"]) for e in read.es} == \
        store_edges(suppliers)
    assert sorted(read.vs["label"]) == sorted(e.name for e in kg.entities.values())
    assert not list(tmp_path.glob("*.tmp"))  # no temporary file left beside it


def test_the_link_graph_as_graphml_has_a_node_per_chunk_and_an_edge_per_link(suppliers: HopGraph,
                                                                             tmp_path: Path) -> None:
    out = tmp_path / "links.graphml"
    write_export(build_export_graph(suppliers.store, "links"), "graphml", out)
    read = igraph.Graph.Read_GraphML(str(out))
    assert (read.vcount(), read.ecount()) == (len(suppliers.store.chunk_table()),
                                              len(suppliers.store.name_graph().links))
    assert {"title", "source", "text", "chunk"} <= set(read.vs.attributes())
    assert {"name", "weight"} <= set(read.es.attributes()) and all(read.es["name"])


def test_the_supplier_graph_as_gexf_reads_back_in_networkx(suppliers: HopGraph, tmp_path: Path) -> None:
    out = tmp_path / "communities.gexf"
    graph = build_export_graph(suppliers.store, "communities")
    write_export(graph, "gexf", out)
    read = networkx.read_gexf(out)
    assert (read.number_of_nodes(), read.number_of_edges()) == (graph.node_count, graph.edge_count)
    assert set(read.nodes) == set(graph.nodes["key"])
    anvaya = next(data for _, data in read.nodes(data=True) if data["label"] == "Anvaya Foundry")
    assert anvaya["type"] == "ORG" and isinstance(anvaya["community_0"], int) and anvaya["community_0"] >= 0
    assert {(read.nodes[s]["label"], read.nodes[t]["label"], d["relation"]) for s, t, d in read.edges(data=True)} == \
        store_edges(suppliers)


def read_tables(out: Path) -> dict[str, list[dict[str, str]]]:
    if out.suffix == ".zip":
        with zipfile.ZipFile(out) as archive:
            return {n: list(csv.DictReader(io.StringIO(archive.read(n).decode()))) for n in archive.namelist()}
    return {p.name: list(csv.DictReader(p.open(encoding="utf-8", newline=""))) for p in out.iterdir()}


@pytest.mark.parametrize("name", ["csv_folder", "export.zip"])
def test_the_supplier_graph_as_csv_has_documented_headers_and_every_row(suppliers: HopGraph, tmp_path: Path,
                                                                        name: str) -> None:
    graph = build_export_graph(suppliers.store, "kg")
    write_export(graph, "csv", tmp_path / name)
    tables = read_tables(tmp_path / name)
    nodes, edges = tables["nodes.csv"], tables["edges.csv"]
    assert (len(nodes), len(edges)) == (graph.node_count, graph.edge_count)
    assert next(iter(nodes[0])) == "key" and set(nodes[0]) == KG_NODE_ATTRS
    assert list(edges[0])[:2] == ["source", "target"] and set(edges[0]) >= KG_EDGE_ATTRS
    labels = {row["key"]: row["label"] for row in nodes}
    assert {(labels[e["source"]], labels[e["target"]], e["relation"]) for e in edges} == store_edges(suppliers)
    assert {e["current"] for e in edges} == {"true", "false"}


def tiny_graph(text: str = "plain") -> ExportGraph:
    return ExportGraph("kg", {"key": ["entity:1", "entity:2"], "label": [text, "b"]}, [(0, 1)],
                       {"relation": ["SUPPLIES"]})


def test_an_unknown_format_is_an_error_naming_the_formats(tmp_path: Path) -> None:
    with pytest.raises(HopgraphError, match=r"unknown export format 'xml'.*graphml, gexf, csv"):
        write_export(tiny_graph(), "xml", tmp_path / "x.xml")


def test_a_path_that_cannot_be_written_is_an_error_naming_it_and_leaves_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder", encoding="utf-8")
    for fmt in ("graphml", "gexf", "csv"):
        with pytest.raises(HopgraphError, match=rf"cannot write the .*{blocker}"):
            write_export(tiny_graph(), fmt, blocker / "out.graphml")
    with pytest.raises(HopgraphError, match="it is a folder"):
        write_export(tiny_graph(), "graphml", tmp_path)
    with pytest.raises(HopgraphError, match="it is a file"):
        write_export(tiny_graph(), "csv", blocker)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_a_new_export_replaces_the_old_file_whole(tmp_path: Path) -> None:
    out = tmp_path / "g.graphml"
    write_export(tiny_graph("first"), "graphml", out)
    write_export(tiny_graph("second"), "graphml", out)
    assert igraph.Graph.Read_GraphML(str(out)).vs["label"] == ["second", "b"]
    assert [p.name for p in tmp_path.iterdir()] == ["g.graphml"]


def test_graphml_and_gexf_read_back_in_igraph_and_networkx_with_the_same_counts_and_attributes(
        suppliers: HopGraph, tmp_path: Path) -> None:
    graph = build_export_graph(suppliers.store, "kg")
    write_export(graph, "graphml", tmp_path / "kg.graphml")
    write_export(graph, "gexf", tmp_path / "kg.gexf")
    by_igraph = igraph.Graph.Read_GraphML(str(tmp_path / "kg.graphml"))
    by_networkx = networkx.read_graphml(tmp_path / "kg.graphml")
    gephi = networkx.read_gexf(tmp_path / "kg.gexf")  # Gephi's format, read as Gephi's readers do
    counts = (graph.node_count, graph.edge_count)
    assert (by_igraph.vcount(), by_igraph.ecount()) == counts
    assert (by_networkx.number_of_nodes(), by_networkx.number_of_edges()) == counts
    assert (gephi.number_of_nodes(), gephi.number_of_edges()) == counts
    entity = {key: i for i, key in enumerate(graph.nodes["key"])}
    for read in (by_networkx, gephi):
        for key, data in read.nodes(data=True):
            row = entity[key]
            assert data["entity"] == graph.nodes["entity"][row] and isinstance(data["entity"], int)
            assert (data["documents"], data["label"]) == (graph.nodes["documents"][row], graph.nodes["label"][row])
    assert by_igraph.vs["entity"] == [float(e) for e in graph.nodes["entity"]]  # igraph's numbers are doubles
    assert sorted(by_igraph.es["documents"]) == sorted(graph.edge_attrs["documents"])


def test_integer_ids_stay_integers_in_graphml(suppliers: HopGraph, tmp_path: Path) -> None:
    write_export(build_export_graph(suppliers.store, "kg"), "graphml", tmp_path / "kg.graphml")
    text = (tmp_path / "kg.graphml").read_text(encoding="utf-8")
    for name in ("entity", "relation_id", "source_chunk", "superseded_by"):
        assert re.search(rf'attr.name="{name}" attr.type="(long|int)"', text), name
    assert 'attr.name="current" attr.type="boolean"' in text
