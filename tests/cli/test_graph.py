"""The knowledge-graph commands: import-triples, paths (--json), review-merges, estimate, ask --mode local|paths,
and their errors (exit 2, one `hopgraph: error:` line)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_kit import fails, invoke, isolate
from fake_llm import Reply, chat, dead_url
from testkit import SUPPLIERS
from typer.testing import CliRunner

import hopgraph.cli.app
from hopgraph.engine import HopGraph
from hopgraph.kg.extractors.parse import EXTRACTOR as PARSE
from hopgraph.query.paths import DEPENDS_ON
from hopgraph.store import open_store

# --- import-triples ----------------------------------------------------------------------------------


def test_import_triples_prints_what_it_imported_and_skipped(store, workdir):
    out = invoke("import-triples", str(workdir / "triples.csv"), "--store", str(store))
    first, *skips = out.splitlines()
    counts = re.match(r"(\d+) triples imported \((\d+) skipped, (\d+) new source documents\); graph: (\d+) entities, "
                      r"(\d+) relations, (\d+) merges to review$", first)
    assert counts, first
    triples, skipped, new_docs, entities, relations, reviews = map(int, counts.groups())
    assert (triples, skipped, new_docs) == (6, 1, 1)
    assert (entities, relations, reviews) == (7, 6, 1)  # the two Kallur names wait for a reviewer
    assert skips == ["  skipped line 7: empty object"]


def test_a_triples_source_may_be_the_document_id_or_its_path(store, workdir):
    opened = open_store(str(store), create=False)
    ids = {d.source.rsplit("/", 1)[-1]: (d.id, d.source) for d in opened.active_documents().values()}
    opened.close()
    profile_id, _ = ids["01_anvaya_profile.md"]
    _, contract_path = ids["03_zephyra_contract.md"]
    (workdir / "by_id.csv").write_text("subject,relation,object,source\n"
                                       f"Anvaya Foundry,OWNS,Hosur plant,{profile_id}\n"
                                       f"Zephyra Motors,USES,calipers,{contract_path}\n", encoding="utf-8")
    out = invoke("import-triples", str(workdir / "by_id.csv"), "--store", str(store))
    assert out.startswith("2 triples imported (0 skipped, 0 new source documents)")
    paths = json.loads(invoke("paths", "--to", "Anvaya Foundry", "--direction", "out", "--max-hops", "1",
                              "--follow", "all", "--json", "--store", str(store)))
    assert [path[0]["doc_id"] for path in paths] == [profile_id]


def test_import_triples_with_a_missing_column_exits_2_naming_it(store, workdir, monkeypatch, capsys):
    bad = workdir / "bad.csv"
    bad.write_text("subject,relation,target,source\nA,SUPPLIES,B,doc\n", encoding="utf-8")
    err = fails(monkeypatch, capsys, "import-triples", str(bad), "--store", str(store))
    assert "missing column(s) object" in err and "bad.csv" in err


def test_import_triples_of_a_missing_file_exits_2(store, workdir, monkeypatch, capsys):
    err = fails(monkeypatch, capsys, "import-triples", str(workdir / "nope.csv"), "--store", str(store))
    assert "nope.csv" in err


# --- paths -------------------------------------------------------------------------------------------


def test_paths_json_prints_every_path_as_hops_with_their_chunk(imported):
    paths = json.loads(invoke("paths", "--to", "Zephyra Motors", "--follow", "all", "--json", "--store",
                              str(imported)))
    assert isinstance(paths, list) and paths
    for path in paths:
        for hop in path:
            assert set(hop) == {"source", "relation", "target", "chunk_id", "doc_id"}
            assert isinstance(hop["chunk_id"], int) and isinstance(hop["doc_id"], int)
    routes = sorted(tuple(hop["source"] for hop in path) for path in paths)
    assert routes == [("Anvaya Foundry", "Corvane Brake Systems"), ("Corvane Brake Systems",),
                      ("Kallur Iron Works", "Corvane Brake Systems")]
    assert all(path[-1]["target"] == "Zephyra Motors" for path in paths)


def test_paths_json_obeys_hops_direction_follow_and_as_of(imported):
    def routes(*options: str) -> list[list[str]]:
        if "--follow" not in options:
            options = (*options, "--follow", "all")
        found = json.loads(invoke("paths", *options, "--json", "--store", str(imported)))
        return sorted([hop["source"] + ">" + hop["target"] for hop in path] for path in found)

    assert routes("--to", "Zephyra Motors", "--max-hops", "1") == [["Corvane Brake Systems>Zephyra Motors"]]
    assert routes("--to", "Hosur", "--follow", "LOCATED_IN,SUPPLIES:reverse", "--max-hops", "2") == [
        ["Anvaya Foundry>Corvane Brake Systems", "Anvaya Foundry>Hosur"], ["Anvaya Foundry>Hosur"]]
    assert routes("--to", "Kallur Pig Iron Works", "--direction", "out", "--max-hops", "1") == [
        ["Kallur Pig Iron Works>Anvaya Foundry"]]
    assert routes("--to", "Corvane Brake Systems", "--max-hops", "1", "--as-of", "2020-01-01") == [
        ["Kallur Iron Works>Corvane Brake Systems"]]  # Anvaya supplies it only from 2021


def test_paths_by_default_find_who_depends_on_a_town(imported):
    # Anvaya's plant is in Hosur; Corvane buys from Anvaya; Zephyra from Corvane: all depend on Hosur.
    paths = json.loads(invoke("paths", "--to", "Hosur", "--max-hops", "3", "--json", "--store", str(imported)))
    chains = sorted(" / ".join(f"{h['source']} {h['relation']} {h['target']}" for h in path) for path in paths)
    assert chains == [
        "Anvaya Foundry LOCATED_IN Hosur",
        "Anvaya Foundry SUPPLIES Corvane Brake Systems / Anvaya Foundry LOCATED_IN Hosur",
        "Corvane Brake Systems SUPPLIES Zephyra Motors / Anvaya Foundry SUPPLIES Corvane Brake Systems / "
        "Anvaya Foundry LOCATED_IN Hosur",
    ]


@pytest.mark.slow
def test_without_an_llm_extract_then_paths_find_typed_chains_of_dependence_on_a_town(tmp_path, monkeypatch):
    # The bundled supplier reports, as a user runs them: index, extract (no LLM configured), paths.
    isolate(monkeypatch, tmp_path)
    invoke("index", str(SUPPLIERS / "docs"), "--store", "s.db")
    invoke("extract", "--store", "s.db")
    paths = json.loads(invoke("paths", "--to", "Hosur", "--direction", "in", "--max-hops", "3", "--json",
                              "--store", "s.db"))
    assert paths and all(path[-1]["relation"] == "LOCATED_IN" and path[-1]["target"] == "Hosur" for path in paths)
    assert {hop["relation"] for path in paths for hop in path} <= set(DEPENDS_ON)  # typed: no co-occurrence
    routes = {tuple(f"{hop['source'].split()[0]} {hop['relation']} {hop['target'].split()[0]}" for hop in path)
              for path in paths}
    # The corpus README's chain, its hops stated in three documents: Zephyra buys from Corvane (08),
    # Corvane from Anvaya (02), Anvaya's plant is in Hosur (01).
    assert ("Corvane SUPPLIES Zephyra", "Anvaya SUPPLIES Corvane", "Anvaya LOCATED_IN Hosur") in routes


def test_paths_as_text_shows_the_chain_and_the_sentence_of_each_hop(imported):
    out = invoke("paths", "--to", "Zephyra Motors", "--max-hops", "1", "--follow", "all", "--store", str(imported))
    assert "1. Corvane Brake Systems —SUPPLIES→ Zephyra Motors" in out
    assert '"Corvane Brake Systems supplies calipers to Zephyra Motors."' in out
    assert out.splitlines()[-1] == "1 path(s)"


def test_paths_to_an_unknown_entity_exits_2(imported, monkeypatch, capsys):
    err = fails(monkeypatch, capsys, "paths", "--to", "Nobody Industries", "--store", str(imported))
    assert "no entity called 'Nobody Industries'" in err


def test_paths_with_a_bad_follow_exits_2(imported, monkeypatch, capsys):
    err = fails(monkeypatch, capsys, "paths", "--to", "Hosur", "--follow", "SUPPLIES:up", "--store", str(imported))
    assert "--follow item 'SUPPLIES:up'" in err


# --- extract with an LLM configured ------------------------------------------------------------------


def test_extract_with_an_llm_that_is_down_fails_fast_and_exits_2(store, monkeypatch, capsys):
    import time

    monkeypatch.setenv("HOPGRAPH_LLM_URL", dead_url())
    monkeypatch.setenv("HOPGRAPH_LLM_MODEL", "fake-model")
    started = time.perf_counter()
    err = fails(monkeypatch, capsys, "extract", "--store", str(store), "--gleanings", "0")
    assert "the LLM failed on all 3 chunks" in err and "not reachable" in err
    assert time.perf_counter() - started < 20  # one quick retry, then the circuit opens for the rest


def test_extract_with_an_llm_merges_its_facts_with_the_parser_s_naming_both_on_each_source(store, monkeypatch, fake,
                                                                                         server):
    # The fake model states one supply per chunk that names one: what a model would say of the text.
    def reply(request: dict) -> Reply:
        text = request["body"]["messages"][-1]["content"]
        said = "Anvaya Foundry supplies brake-disc castings to Corvane Brake Systems" in text
        names = ["Anvaya Foundry", "Corvane Brake Systems"] if said else []
        return chat(json.dumps({"entities": [{"name": n, "type": "ORG", "description": ""} for n in names],
                                "relations": [{"source": names[0], "relation": "SUPPLIES", "target": names[1],
                                               "description": "", "date": None}] if said else []}))

    fake.responder = reply
    monkeypatch.setenv("HOPGRAPH_LLM_URL", server[1])
    monkeypatch.setenv("HOPGRAPH_LLM_MODEL", "fake-model")
    out = invoke("extract", "--store", str(store), "--gleanings", "0")
    assert out.startswith("3/3 chunks extracted, 0 failed, 0 items skipped; 2 entities, 1 relations from the LLM; ")
    with HopGraph(str(store), create=False) as hg:
        graph = hg.knowledge_graph
        sources = {(graph.entities[r.source].name, graph.entities[r.target].name): {s.extractor for s in r.sources}
                   for r in graph.relations if r.relation == "SUPPLIES"}
    assert sources[("Anvaya Foundry", "Corvane Brake Systems")] == {f"llm:fake-model+{PARSE}"}
    assert sources[("Corvane Brake Systems", "Zephyra Motors")] == {PARSE}  # the model did not say it


def test_extract_backfill_reads_only_what_index_left_and_a_rerun_leaves_the_graph_as_it_was(store, monkeypatch,
                                                                                            fake, server):
    from naming_llm import extraction_texts, responder

    fake.responder = responder()
    monkeypatch.setenv("HOPGRAPH_LLM_URL", server[1])
    monkeypatch.setenv("HOPGRAPH_LLM_MODEL", "fake-model")
    out = invoke("extract", "--backfill", "--store", str(store))
    assert out.splitlines()[0] == "backfill: 3/3 pending chunks extracted by the LLM, 0 failed (asked again next run)"
    assert out.splitlines()[1].startswith("graph rebuilt: ")
    assert len(extraction_texts(fake.bodies)) == 3
    out = invoke("extract", "--backfill", "--store", str(store))
    assert out.splitlines() == ["backfill: 0/0 pending chunks extracted by the LLM, 0 failed (asked again next run)",
                                "no fact changed: the graph is as it was"]
    assert len(extraction_texts(fake.bodies)) == 3


# --- review-merges -----------------------------------------------------------------------------------


def pending(store: Path) -> list[tuple[int, str]]:
    out = invoke("review-merges", "--store", str(store))
    return [(int(line.split()[0]), line) for line in out.splitlines() if line.strip()]


def test_review_merges_lists_the_pending_pair(imported):
    [(_, line)] = pending(imported)
    assert "ORG" in line and "'Kallur Pig Iron Works'" in line and "'Kallur Iron Works'" in line


def test_accepting_a_merge_rebuilds_the_graph_with_the_pair_merged(imported):
    [(review_id, _)] = pending(imported)
    out = invoke("review-merges", "--accept", str(review_id), "--store", str(imported))
    assert out.splitlines()[0] == "graph rebuilt: 6 entities, 6 relations"
    assert pending(imported) == []
    paths = json.loads(invoke("paths", "--to", "Kallur Iron Works", "--direction", "out", "--max-hops", "1",
                              "--follow", "all", "--json", "--store", str(imported)))
    assert sorted(path[0]["target"] for path in paths) == ["Anvaya Foundry", "Corvane Brake Systems"]


def test_rejecting_a_merge_keeps_the_pair_apart_after_the_rebuild(imported):
    [(review_id, _)] = pending(imported)
    out = invoke("review-merges", "--reject", str(review_id), "--store", str(imported))
    assert out.splitlines()[0] == "graph rebuilt: 7 entities, 6 relations"
    assert pending(imported) == []


def test_deciding_an_unknown_review_says_so(imported):
    result = CliRunner().invoke(hopgraph.cli.app.app,
                                ["review-merges", "--accept", "999", "--store", str(imported), "-q"])
    assert result.exit_code == 0
    assert "no merge review with id 999" in result.stderr


# --- estimate ----------------------------------------------------------------------------------------


def test_estimate_prints_the_number_of_llm_calls(workdir):
    out = invoke("estimate", str(workdir / "docs"), "--gleanings", "1")
    assert out.startswith("3 documents, 3 chunks → 6 LLM calls (2 per chunk); ")
    assert "assuming 350 per call" in out


def test_estimate_with_prices_prints_the_money(workdir):
    out = invoke("estimate", str(workdir / "docs"), "--out-tokens", "100", "--price-in", "0", "--price-out", "1000")
    assert "3 LLM calls (1 per chunk)" in out
    assert "≈ 0.3000 at 0/1000.0 per million input/output tokens" in out  # 3 calls × 100 tokens × 1000 / 1e6


# --- ask --mode local | paths ------------------------------------------------------------------------


def test_ask_mode_paths_answers_with_chains_and_citations(imported):
    out = invoke("ask", "Who depends on Zephyra Motors?", "--mode", "paths", "--store", str(imported))
    assert "Answer (extractive):" in out
    assert "Anvaya Foundry —SUPPLIES→ Corvane Brake Systems —SUPPLIES→ Zephyra Motors" in out
    # each citation names the file and chunk a reader can open, then the chunk id
    assert re.search(r"^Citations: 0[23]_\w+\.md#1 \(chunk \d+\), 0[23]_\w+\.md#1 \(chunk \d+\)$", out, re.MULTILINE)


def test_ask_mode_local_json_has_the_answer_and_the_graph_hits(imported):
    payload = json.loads(invoke("ask", "What does Anvaya Foundry supply?", "--mode", "local", "--json",
                                "--store", str(imported)))
    assert (payload["mode"], payload["why"]) == ("local", "asked for")
    hits = payload["hits"]
    assert hits and {hit["found_by"] for hit in hits} == {"graph"}
    assert "Anvaya Foundry —SUPPLIES→ Corvane Brake Systems" in payload["answer"]["text"]
    assert payload["answer"]["citations"] and payload["answer"]["writer"] == "extractive"


def test_ask_mode_local_that_falls_open_prints_a_note(imported):
    out = invoke("ask", "Is it raining today?", "--mode", "local", "--store", str(imported))
    assert "note: no entity of the question is in the graph" in out


def test_ask_with_an_unknown_mode_exits_2(imported, monkeypatch, capsys):
    err = fails(monkeypatch, capsys, "ask", "Who supplies Zephyra Motors?", "--mode", "sideways", "--store",
                str(imported))
    assert "unknown mode 'sideways'" in err
