"""`hopgraph stats`: the counts of the store, its size on disk (the file, its WAL, the search
snapshot) and its last runs, as text and as JSON."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

from cli_kit import fails, invoke

from hopgraph.records.answers import JSON_SCHEMA_VERSION
from hopgraph.store import open_store

ENDED = ("subject,relation,object,source,date\n"
         "Anvaya Foundry,OWNS,Hosur grey-iron plant,01_anvaya_profile.md,2019/2021\n")


def test_stats_json_counts_what_the_store_holds(imported: Path, workdir: Path) -> None:
    (workdir / "ended.csv").write_text(ENDED, encoding="utf-8")
    invoke("import-triples", str(workdir / "ended.csv"), "--store", str(imported))  # a fact that ended in 2021
    invoke("communities", "--store", str(imported))
    invoke("ask", "Who supplies Corvane Brake Systems?", "--store", str(imported))  # writes the search snapshot
    stats = json.loads(invoke("stats", "--json", "--store", str(imported)))
    assert (stats["schema"], stats["command"], stats["backend"]) == (JSON_SCHEMA_VERSION, "stats", "sqlite")
    with closing(open_store(str(imported), create=False)) as store:
        graph, tree = store.knowledge_graph(), store.community_tree()
        chunks, names = len(store.chunk_table()), store.name_graph()
        meta = store.meta()
    counts = stats["counts"]
    assert (counts["documents"], counts["chunks"]) == (4, chunks)  # three files and the triples' new source
    assert (counts["names"], counts["links"]) == (len(names.names), len(names.links))
    assert (counts["entities"], counts["relations"]) == (len(graph.entities), len(graph.relations))
    # Relations that hold today: all but the ownership that ended in 2021
    assert counts["current_relations"] == sum(r.holds_on() for r in graph.relations) == len(graph.relations) - 1
    assert (counts["communities"], counts["pending_merges"]) == (len(tree), 1)
    sizes = stats["bytes"]
    assert sizes["file"] == imported.stat().st_size and sizes["search_snapshot"] > 0
    assert sizes["total"] == sizes["file"] + sizes["wal"] + sizes["search_snapshot"]
    assert stats["generation"] == meta["generation"] and stats["embedder"] == meta["embedder"]
    # newest first: the tree `communities` built, the two imports (the first indexed its new source
    # document after the first index run)
    runs = stats["runs"]
    assert (runs[0]["command"], runs[0]["stats"]["communities"]) == ("communities", len(tree))
    assert [(run["command"], run["stats"]["triples"]) for run in runs[1:3]] == [("import-triples", 1),
                                                                                ("import-triples", 6)]
    assert runs[1]["stats"]["relations"] == len(graph.relations)
    assert [(run["command"], run["stats"]["added"]) for run in runs[3:5]] == [("index", 1), ("index", 3)]


def test_every_command_that_changes_the_store_is_in_its_run_log(store: Path, workdir: Path) -> None:
    invoke("import-triples", str(workdir / "triples.csv"), "--store", str(store))
    invoke("extract", "--store", str(store))
    invoke("communities", "--store", str(store))
    invoke("communities", "--store", str(store))  # read back, not built: no run
    invoke("reports", "--store", str(store), "--extractive")
    invoke("remove", "1", "--store", str(store))
    runs = json.loads(invoke("stats", "--json", "--runs", "10", "--store", str(store)))["runs"]
    assert [run["command"] for run in runs] == ["remove", "reports", "communities", "extract",
                                                "import-triples", "index", "index"]
    remove, reports, _, extract, imported = runs[:5]
    assert remove["stats"]["withdrawn"] == 1 and reports["stats"]["reused"] == 0 < reports["stats"]["written"]
    assert extract["stats"]["extractor"] == "concepts+parse" and imported["stats"]["triples"] > 0
    text = invoke("stats", "--runs", "10", "--store", str(store))
    assert "import-triples" in text and "triples " in text and "reused 0" in text


def test_stats_as_text_shows_each_count_and_the_last_run(store: Path) -> None:
    out = invoke("stats", "--store", str(store))
    assert "documents  3 (0 withdrawn)" in out and "relations  0 (0 hold today, 0 superseded)" in out
    assert "on disk    file " in out and "total" in out
    assert "last runs:" in out and " index " in out and "3 documents read, 3 added" in out


def test_stats_of_a_missing_store_exits_2_and_creates_nothing(workdir: Path, monkeypatch, capsys) -> None:
    err = fails(monkeypatch, capsys, "stats", "--store", str(workdir / "nowhere.db"))
    assert "no store at" in err and not (workdir / "nowhere.db").exists()
