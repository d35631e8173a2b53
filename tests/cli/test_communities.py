
"""The community commands: communities (--json, --rebuild), reports (--extractive, --estimate), and
`extract` falling to the no-LLM graph (concepts and parse facts) when no model is configured."""

from __future__ import annotations

import json
import re

from cli_kit import fails, invoke


def test_communities_prints_levels_and_sizes(imported):
    out = invoke("communities", "--store", str(imported))
    head = re.match(r"(\d+) communities in (\d+) level\(s\)", out)
    assert head and int(head.group(1)) >= 1  # six relations: one or two communities
    stats = json.loads(invoke("communities", "--store", str(imported), "--json"))
    assert stats["communities"] == int(head.group(1))
    assert sum(level["communities"] for level in stats["per_level"]) == stats["communities"]


def test_reports_are_written_extractively_with_citations(imported):
    out = invoke("reports", "--store", str(imported), "--extractive", "--show", "1")
    assert re.search(r"^(\d+) reports \(extractive\): 0 reused, \1 written, 0 dropped \(communities gone\); "
                     r"0 failed", out, re.MULTILINE)
    assert "[community " in out and "[chunks " in out
    assert re.search(r"^Labels: \S", out, re.MULTILINE)  # the community's labels, shown with its report


SMALL_CHANGE = "subject,relation,object,source\nAnvaya Foundry,OWNS,Hosur grey-iron plant,01_anvaya_profile.md\n"


def test_if_changed_keeps_the_partition_after_a_small_change_and_rewrites_only_changed_reports(imported, workdir):
    store = str(imported)
    first = invoke("communities", "--store", store, "--if-changed")
    assert "partitioned again" in first
    reports = invoke("reports", "--store", store, "--extractive", "--show", "0")
    total = int(re.match(r"(\d+) reports", reports).group(1))
    again = invoke("communities", "--store", store, "--if-changed")
    assert "stored (the graph has not changed" in again
    (workdir / "more.csv").write_text(SMALL_CHANGE, encoding="utf-8")
    invoke("import-triples", str(workdir / "more.csv"), "--store", store)  # one entity more of 7: 2 change
    loose = invoke("communities", "--store", store, "--if-changed", "--threshold", "0.5")
    assert re.search(r"kept the previous partition: \d+\.\d% of entities changed \(threshold 50%\)", loose)
    after = invoke("reports", "--store", store, "--extractive", "--show", "0")
    reused, written = map(int, re.search(r"(\d+) reused, (\d+) written", after).groups())
    assert written >= 1 and reused + written == int(re.match(r"(\d+) reports", after).group(1)) >= total
    strict = invoke("communities", "--store", store, "--rebuild", "--if-changed", "--threshold", "0.01")
    assert "partitioned again" in strict


def test_reports_estimate_counts_a_call_per_community_and_spends_nothing(imported):
    communities = json.loads(invoke("communities", "--store", str(imported), "--json"))["communities"]
    out = invoke("reports", "--store", str(imported), "--estimate")
    assert out.startswith(f"{communities} LLM calls")
    assert "reports (" not in out


def test_communities_before_any_graph_is_a_one_line_error(store, monkeypatch, capsys):
    err = fails(monkeypatch, capsys, "communities", "--store", str(store))
    assert "hopgraph extract" in err


def test_extract_without_an_llm_builds_the_concept_graph_and_the_parser_s_typed_relations(store):
    out = invoke("extract", "--store", str(store))
    match = re.match(r"concepts \+ parse \(no LLM configured\): (\d+) entities, (\d+) relations "
                     r"\((\d+) typed, (\d+) co-occurrence\)", out)
    assert match, out
    entities, relations, typed, co_occurring = map(int, match.groups())
    assert entities > 0 and typed > 0 and co_occurring > 0 and typed + co_occurring == relations
