
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
    assert re.search(r"^\d+ reports \(extractive\); 0 failed", out, re.MULTILINE)
    assert "[community " in out and "[chunks " in out
    assert re.search(r"^Labels: \S", out, re.MULTILINE)  # the community's labels, shown with its report


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
