"""`--json` on every command that prints a result: one object on stdout with `schema` (the version
`ask --json` carries) and `command`, whose fields agree with what the store then holds."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

from cli_kit import invoke
from fake_llm import chat

from hopgraph.records.answers import JSON_SCHEMA_VERSION
from hopgraph.store import open_store


def as_json(*args: str) -> dict:
    result = json.loads(invoke(*args, "--json"))
    assert result["schema"] == JSON_SCHEMA_VERSION and result["command"] == args[0]
    return result


def test_index_and_remove_json_count_what_the_store_then_holds(workdir: Path) -> None:
    db = str(workdir / "j.db")
    (workdir / "docs" / "broken.pdf").write_bytes(b"not a pdf")
    indexed = as_json("index", str(workdir / "docs"), "--store", db)
    with closing(open_store(db, create=False)) as store:
        assert indexed["added"] == indexed["documents"] == len(store.active_documents()) == 3
        assert indexed["links"] == len(store.name_graph().links) and indexed["store"] == db
        assert [skip["path"] for skip in indexed["skipped"]] == [str(workdir / "docs" / "broken.pdf")]
        assert indexed["seconds"]["total"] > 0
    again = as_json("index", str(workdir / "docs"), "--store", db)
    assert (again["added"], again["unchanged"]) == (0, 3)
    removed = as_json("remove", str(workdir / "docs" / "01_anvaya_profile.md"), "--store", db)
    assert removed["withdrawn"] == 1
    with closing(open_store(db, create=False)) as store:
        assert len(store.active_documents()) == 2


def test_import_triples_json_has_the_report_and_the_graph_the_store_holds(store: Path, workdir: Path) -> None:
    result = as_json("import-triples", str(workdir / "triples.csv"), "--store", str(store))
    assert (result["triples"], result["new_documents"], result["skipped"]) == (6, 1, ["line 7: empty object"])
    with closing(open_store(str(store), create=False)) as opened:
        graph, reviews = opened.knowledge_graph(), opened.merge_reviews("pending")
    assert result["graph"]["entities"] == len(graph.entities) and result["graph"]["relations"] == len(graph.relations)
    assert result["graph"]["reviews"] == len(reviews) == 1


def test_review_merges_json_lists_the_pending_pair_then_the_rebuilt_graph(imported: Path) -> None:
    listed = as_json("review-merges", "--store", str(imported))
    [review] = listed["pending"]
    assert {review["a"], review["b"]} == {"Kallur Pig Iron Works", "Kallur Iron Works"} and listed["graph"] is None
    decided = as_json("review-merges", "--accept", str(review["id"]), "--accept", "999", "--store", str(imported))
    assert decided["accepted"] == [review["id"], 999] and decided["unknown"] == [999]
    assert decided["pending"] == [] and decided["graph"]["entities"] == 6
    with closing(open_store(str(imported), create=False)) as opened:
        assert len(opened.knowledge_graph().entities) == 6


def test_extract_json_without_an_llm_reports_the_concept_graph_the_store_holds(store: Path) -> None:
    result = as_json("extract", "--store", str(store))
    assert result["extractor"] == "concepts+parse" and result["why"] == "no LLM configured"
    with closing(open_store(str(store), create=False)) as opened:
        graph = opened.knowledge_graph()
    assert result["graph"]["entities"] == len(graph.entities) > 0
    assert result["graph"]["relations"] == len(graph.relations) >= result["graph"]["typed"] > 0


def test_extract_json_with_an_llm_has_the_chunks_and_the_usage(store: Path, monkeypatch, fake, server) -> None:
    fake.responder = lambda request: chat(json.dumps({"entities": [], "relations": []}))
    monkeypatch.setenv("HOPGRAPH_LLM_URL", server[1])
    monkeypatch.setenv("HOPGRAPH_LLM_MODEL", "fake-model")
    result = as_json("extract", "--store", str(store), "--gleanings", "0")
    assert result["extractor"] == "llm+parse"
    assert (result["chunks"], result["extracted"], result["failed"]) == (3, 3, [])
    assert sum(step["calls"] for step in result["usage"].values()) == 3


def test_estimate_json_has_the_calls_and_the_money(workdir: Path) -> None:
    result = as_json("estimate", str(workdir / "docs"), "--gleanings", "1", "--out-tokens", "100",
                     "--price-in", "0", "--price-out", "1000")
    assert (result["documents"], result["chunks"], result["calls"], result["gleanings"]) == (3, 3, 6, 1)
    assert result["tokens_out"] == 600 and abs(result["cost"] - 0.6) < 1e-9
    assert as_json("estimate", str(workdir / "docs"))["cost"] is None


def test_reports_json_has_every_report_with_its_citations(imported: Path) -> None:
    result = as_json("reports", "--store", str(imported), "--extractive")
    communities = json.loads(invoke("communities", "--store", str(imported), "--json"))["communities"]
    assert len(result["reports"]) == communities == result["written"] and result["failed"] == []
    ratings = [report["rating"] for report in result["reports"]]
    assert ratings == sorted(ratings, reverse=True)
    with closing(open_store(str(imported), create=False)) as opened:
        chunk_ids = {int(i) for i in opened.chunk_table().ids}
    cited = {c for report in result["reports"] for finding in report["findings"] for c in finding["chunk_ids"]}
    assert cited and cited <= chunk_ids
    estimate = as_json("reports", "--store", str(imported), "--estimate")
    assert estimate["estimate"]["calls"] == communities
