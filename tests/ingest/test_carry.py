"""Facts survive a re-chunking, on both backends: a renamed file keeps every fact (and the graph is
relabelled, not rebuilt); an edited file keeps the facts of its unchanged chunks, and its imported
triple is attached again to the new chunk that states it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from store_state import store_state
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph

FILES = {
    "ravik.md": ["# Ravik Foundry", "Ravik Foundry runs a single plant in Dharwad.",
                 "Ravik Foundry supplies disc castings to Tessaro Brakes.", "Ravik Foundry employs 400 people."],
    "tessaro.md": ["# Tessaro Brakes", "Tessaro Brakes makes brake calipers in Pune.",
                   "Tessaro Brakes buys brake pads from Kestrel Friction.", "Tessaro Brakes sells to Corvane."],
}
TRIPLES = """subject,relation,object,source,date,subject_type,object_type
Ravik Foundry,SUPPLIES,Tessaro Brakes,ravik.md,2020-01-01,ORG,ORG
Kestrel Friction,SUPPLIES,Tessaro Brakes,tessaro.md,,ORG,ORG
"""
IMPORTED = "triples:triples.csv"


@pytest.fixture(params=["sqlite", "postgres"])
def location(request, tmp_path) -> str:
    return request.getfixturevalue("pg_url") if request.param == "postgres" else str(tmp_path / "carry.db")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, paragraphs in FILES.items():
        (docs / name).write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    (tmp_path / "triples.csv").write_text(TRIPLES, encoding="utf-8")
    return docs


@pytest.fixture
def hg(location: str, folder: Path):
    with HopGraph(location, Settings(names_from="titles"), embedder=BagOfWordsEmbedder()) as graph:
        graph.index([folder])
        graph.import_triples(folder.parent / "triples.csv")
        graph.extract_without_llm()
        yield graph


def rebuilds(hg: HopGraph, monkeypatch) -> list[int]:
    """Counts the knowledge-graph rebuilds from now on."""
    calls: list[int] = []
    build = hg.build_graph
    monkeypatch.setattr(hg, "build_graph", lambda *a, **k: calls.append(1) or build(*a, **k))
    return calls


def without_sources(state: dict) -> dict:
    return {**state, "documents": sorted((title, content) for _, title, content in state["documents"])}


def test_a_renamed_file_keeps_every_fact_and_the_graph_is_only_relabelled(hg, folder, monkeypatch):
    before = store_state(hg.store)
    assert any(extractor == IMPORTED for _, extractor, _ in before["facts"])
    calls = rebuilds(hg, monkeypatch)
    (folder / "ravik.md").rename(folder / "ravik_renamed.md")
    report = hg.index([folder])
    assert (report.added, report.withdrawn, report.embedded) == (1, 1, 0)
    assert report.facts_carried == len([f for f in before["facts"] if f[0][0] == "Ravik Foundry"])
    after = store_state(hg.store)
    assert after["documents"] != before["documents"]  # the source changed …
    assert without_sources(after) == without_sources(before)  # … and nothing else: facts, relations, links
    assert calls == [] and not hg.store.graph_behind_facts()  # facts only moved: no rebuild
    ravik = next(d.id for d in hg.store.active_documents().values() if d.source.endswith("ravik_renamed.md"))
    cited = {s.doc_id for r in hg.store.knowledge_graph().relations for s in r.sources}
    assert ravik in cited  # the relabelled sources name the document under its new id


def test_after_a_rename_nothing_cites_the_chunks_it_deleted(hg, folder):
    hg.communities()
    assert hg.knowledge_graph.relations  # the graph view is loaded before the rename
    (folder / "ravik.md").rename(folder / "ravik_renamed.md")
    hg.index([folder])
    chunks = set(hg.store.chunk_docs())
    assert {s.chunk_id for r in hg.knowledge_graph.relations for s in r.sources} <= chunks  # the view is fresh
    # The stored community tree hashed the old chunk ids, and its reports cite them: it goes with them,
    # as it goes with a rebuilt graph, and is made again from the relabelled graph on demand.
    assert hg.store.community_tree() is None
    assert {c for report in hg.reports(use_llm=False).reports for f in report.findings for c in f.chunk_ids} <= chunks


def test_an_edited_chunk_loses_its_own_facts_only_and_its_imported_triple_moves_with_it(hg, folder, monkeypatch):
    before = store_state(hg.store)
    calls = rebuilds(hg, monkeypatch)
    paragraphs = list(FILES["ravik.md"])
    paragraphs[2] = "Since 2020 Ravik Foundry supplies disc castings to Tessaro Brakes."
    (folder / "ravik.md").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    assert hg.index([folder]).updated == 1
    after = store_state(hg.store)
    kept = {chunk for chunk in after["chunks"]}
    old_chunks = set(before["chunks"]) - kept
    new_chunks = kept - set(before["chunks"])
    assert len(old_chunks) == len(new_chunks) == 1  # one paragraph changed
    assert [f for f in before["facts"] if f[0] not in old_chunks] == \
        [f for f in after["facts"] if f[0] not in new_chunks]  # the other chunks keep theirs
    on_new = [(extractor, payload) for chunk, extractor, payload in after["facts"] if chunk in new_chunks]
    assert on_new == [(IMPORTED, '[["Ravik Foundry", "Tessaro Brakes"], [["Ravik Foundry", "SUPPLIES", '
                                 '"Tessaro Brakes"]]]')]  # the imported triple, attached to what states it
    assert calls == [1]  # facts changed: the graph was rebuilt
    supplies = [r for r in after["relations"] if r[:3] == ("Ravik Foundry", "SUPPLIES", "Tessaro Brakes")]
    assert supplies and new_chunks.pop() in supplies[0][3]
    hg.extract_without_llm()  # the new paragraph is read like any unread chunk
    assert any(chunk in (set(after["chunks"]) - set(before["chunks"])) and extractor != IMPORTED
               for chunk, extractor, _ in store_state(hg.store)["facts"])


def test_a_file_renamed_and_edited_keeps_its_imported_triple(hg, folder):
    paragraphs = list(FILES["tessaro.md"])
    paragraphs[2] = "Kestrel Friction ships brake pads to Tessaro Brakes every week."
    (folder / "tessaro.md").unlink()
    (folder / "tessaro_2024.md").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    hg.index([folder])
    facts = store_state(hg.store)["facts"]
    stating = [chunk for chunk, extractor, _ in facts if extractor == IMPORTED and chunk[0] == "Tessaro Brakes"]
    assert [ord_ for _, ord_, _ in stating] == [1]  # the edited paragraph (the heading is joined to the first)
    assert ("Kestrel Friction", "SUPPLIES", "Tessaro Brakes") in {r[:3] for r in store_state(hg.store)["relations"]}


def test_a_withdrawn_file_takes_its_facts_and_vectors_with_it(hg, folder):
    paid = {"a text a killed run embedded": np.ones(BagOfWordsEmbedder.dim, dtype=np.float32)}
    hg.store.save_vectors(paid, "another-model")  # no chunk holds it yet: it is no vector of the withdrawn file
    (folder / "ravik.md").unlink()
    hg.index([folder])
    state = store_state(hg.store, all_vectors=True)
    assert not [f for f in state["facts"] if f[0][0] == "Ravik Foundry"]
    assert ("Ravik Foundry", "SUPPLIES", "Tessaro Brakes") not in {r[:3] for r in state["relations"]}
    assert set(state["all_vectors"]) == {(h, BagOfWordsEmbedder.name) for _, _, h in state["chunks"]} | \
        {("a text a killed run embedded", "another-model")}
