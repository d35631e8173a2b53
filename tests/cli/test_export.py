"""`hopgraph export`: the link graph of a small indexed store, the imported knowledge graph, and the
errors (exit 2, one line naming the choices, the path or the step to run)."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import igraph
from cli_kit import fails, invoke

from hopgraph.store import open_store


def test_export_links_of_an_indexed_store_to_graphml_has_its_chunks_and_links(workdir: Path) -> None:
    corpus = workdir / "three.json"
    corpus.write_text(json.dumps([{"title": "Alpha", "text": "Alpha mentions Beta."},
                                  {"title": "Beta", "text": "Beta is a letter, and so is Gamma."},
                                  {"title": "Gamma", "text": "Gamma follows Beta."}]), encoding="utf-8")
    invoke("index", str(corpus), "--store", "links.db")
    out = invoke("export", "--format", "graphml", "--what", "links", "--store", "links.db")
    with closing(open_store("links.db", create=False)) as opened:
        chunks, links = len(opened.chunk_table()), len(opened.name_graph().links)
    assert out.strip() == f"links: {chunks} nodes, {links} edges → hopgraph-links.graphml"
    read = igraph.Graph.Read_GraphML(str(workdir / "hopgraph-links.graphml"))
    assert (read.vcount(), read.ecount()) == (chunks, links) and links >= 3
    title = read.vs["title"]
    assert {(title[e.source], title[e.target], e["name"]) for e in read.es} >= {("Alpha", "Beta", "Beta"),
                                                                              ("Gamma", "Beta", "Beta")}


def test_export_json_names_the_files_and_the_counts(imported: Path, workdir: Path) -> None:
    result = json.loads(invoke("export", "--format", "csv", "--what", "kg", "--out", "out/kg.zip", "--json",
                               "--store", str(imported)))
    assert (result["command"], result["nodes"], result["edges"], result["files"]) == ("export", 7, 6, ["out/kg.zip"])
    assert (workdir / "out" / "kg.zip").is_file()


def test_an_unknown_format_or_graph_exits_2_naming_the_choices(imported: Path, monkeypatch, capsys) -> None:
    err = fails(monkeypatch, capsys, "export", "--format", "dot", "--store", str(imported))
    assert "unknown --format 'dot': choose one of graphml, gexf, csv" in err
    err = fails(monkeypatch, capsys, "export", "--what", "names", "--store", str(imported))
    assert "unknown --what 'names': choose one of links, kg, communities" in err


def test_an_unwritable_out_path_exits_2_naming_it(imported: Path, workdir: Path, monkeypatch, capsys) -> None:
    (workdir / "taken").write_text("a file, not a folder", encoding="utf-8")
    err = fails(monkeypatch, capsys, "export", "--out", str(workdir / "taken" / "kg.graphml"), "--store", str(imported))
    assert "cannot write the export to" in err and "taken/kg.graphml" in err


def test_exporting_what_the_store_lacks_says_which_step_to_run(store: Path, workdir: Path, monkeypatch,
                                                                capsys) -> None:
    err = fails(monkeypatch, capsys, "export", "--what", "kg", "--store", str(store))
    assert "no knowledge graph to export" in err and "hopgraph import-triples" in err
    err = fails(monkeypatch, capsys, "export", "--what", "links", "--store", str(workdir / "nowhere.db"))
    assert "no store at" in err and not (workdir / "nowhere.db").exists()
    open_store(str(workdir / "empty.db")).close()  # a store with nothing in it
    err = fails(monkeypatch, capsys, "export", "--what", "links", "--store", str(workdir / "empty.db"))
    assert "has no chunks to export: run `hopgraph index PATH...` first" in err
