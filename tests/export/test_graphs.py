"""The export graphs match the store: a node per chunk or entity, an edge per link or relation, each
with its attributes, none of them None; a store without the graph asked for is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.export import build_export_graph
from hopgraph.export.graphs import LIST_SEPARATOR, NONE_ID, ExportGraph, safe
from hopgraph.kg.facts import CO_OCCURS
from hopgraph.records.communities import CommunityTree
from hopgraph.records.documents import Document


def assert_graphml_safe(graph: ExportGraph) -> None:
    for columns, count in ((graph.nodes, graph.node_count), (graph.edge_attrs, graph.edge_count)):
        for name, column in columns.items():
            assert len(column) == count, name
            assert all(isinstance(v, str | int | float | bool) for v in column), name


def test_the_link_graph_has_a_node_per_chunk_and_an_edge_per_link_with_its_name(suppliers: HopGraph) -> None:
    graph = build_export_graph(suppliers.store, "links")
    table, stored = suppliers.store.chunk_table(), suppliers.store.name_graph()
    assert graph.node_count == len(table) and graph.edge_count == len(stored.links) > 0
    assert graph.nodes["chunk"] == [int(i) for i in table.ids]
    surfaces = {n.id: n.surface for n in stored.names}
    exported = {(graph.nodes["chunk"][s], graph.nodes["chunk"][t], name)
                for (s, t), name in zip(graph.edges, graph.edge_attrs["name"], strict=True)}
    assert exported == {(link.source_chunk, link.target_chunk, surfaces[link.name_id]) for link in stored.links}
    assert all(graph.nodes["title"]) and all(graph.nodes["source"]) and all(graph.nodes["text"])
    assert_graphml_safe(graph)


def test_the_kg_graph_has_every_entity_and_relation_with_sources_and_dates(suppliers: HopGraph) -> None:
    kg = suppliers.knowledge_graph
    graph = build_export_graph(suppliers.store, "kg")
    assert (graph.node_count, graph.edge_count) == (len(kg.entities), len(kg.relations))
    names = graph.nodes["label"]
    edges = {(names[s], relation, names[t]) for (s, t), relation in zip(graph.edges, graph.edge_attrs["relation"],
                                                                          strict=True)}
    assert edges == {(kg.entities[r.source].name, r.relation, kg.entities[r.target].name) for r in kg.relations}
    by_id = {r.id: r for r in kg.relations}
    for k, relation_id in enumerate(graph.edge_attrs["relation_id"]):
        relation = by_id[relation_id]
        chunks = sorted({s.chunk_id for s in relation.sources})
        assert graph.edge_attrs["source_chunk"][k] == chunks[0]
        assert graph.edge_attrs["source_chunks"][k] == LIST_SEPARATOR.join(map(str, chunks))
        assert graph.edge_attrs["valid_from"][k] == (relation.valid_from or "")
        assert graph.edge_attrs["superseded_by"][k] == (relation.superseded_by or NONE_ID)
        assert graph.edge_attrs["current"][k] is relation.holds_on()
    current = dict(zip(graph.edge_attrs["relation_id"], graph.edge_attrs["current"], strict=True))
    assert any(not current[r.id] for r in kg.relations if r.superseded_by)  # a superseded supply
    assert any(not current[r.id] for r in kg.relations if not r.superseded_by)  # Sreevar's ownership ended in 2024
    assert any(graph.edge_attrs["valid_from"])
    anvaya = names.index("Anvaya Foundry")
    assert "Anvaya" in graph.nodes["aliases"][anvaya].split(LIST_SEPARATOR)
    assert graph.nodes["type"][anvaya] == "ORG"
    assert_graphml_safe(graph)


def test_the_communities_graph_gives_each_entity_its_community_at_every_level(suppliers: HopGraph) -> None:
    tree = suppliers.communities()
    graph = build_export_graph(suppliers.store, "communities")
    assert graph.edge_count == len(suppliers.knowledge_graph.relations)
    assert tree.levels >= 2
    for level in range(tree.levels):
        column = graph.nodes[f"community_{level}"]
        for community in tree.at_level(level):
            members = {graph.nodes["entity"].index(e) for e in community.entities}
            assert {column[i] for i in members} == {community.id}
    deepest = graph.nodes[f"community_{tree.levels - 1}"]
    assert graph.nodes["community"] == [d if d != NONE_ID else c for d, c in
                                        zip(deepest, graph.nodes["community_0"], strict=True)]
    assert_graphml_safe(graph)


@pytest.fixture
def indexed_only(tmp_path: Path) -> HopGraph:
    hg = HopGraph(str(tmp_path / "plain.db"), Settings(), embedder=BagOfWordsEmbedder())
    hg.index_documents([Document("Anvaya Foundry", "Anvaya Foundry casts brake discs.", "a.md"),
                        Document("Corvane", "Corvane buys from Anvaya Foundry.", "b.md")])
    yield hg
    hg.close()


def test_a_store_without_the_graph_asked_for_names_the_step_to_run(indexed_only: HopGraph, tmp_path: Path) -> None:
    with pytest.raises(HopgraphError, match=r"no knowledge graph.*import-triples"):
        build_export_graph(indexed_only.store, "kg")
    with pytest.raises(HopgraphError, match="no knowledge graph"):
        build_export_graph(indexed_only.store, "communities")
    assert build_export_graph(indexed_only.store, "links").edge_count == 1  # Corvane's mention of Anvaya
    with HopGraph(str(tmp_path / "empty.db"), Settings(), embedder=BagOfWordsEmbedder()) as empty, \
            pytest.raises(HopgraphError, match=r"no chunks.*hopgraph index"):
        build_export_graph(empty.store, "links")


def test_a_knowledge_graph_without_communities_names_the_step_to_run(suppliers: HopGraph) -> None:
    suppliers.store.replace_communities(CommunityTree([]))
    with pytest.raises(HopgraphError, match=r"no communities.*hopgraph communities"):
        build_export_graph(suppliers.store, "communities")


def test_characters_xml_cannot_hold_are_dropped() -> None:
    assert safe("page\x0cbreak\x00 and\ttab\n") == "pagebreak and\ttab\n"


def test_every_entity_and_relation_names_its_source_documents(suppliers: HopGraph) -> None:
    graph = build_export_graph(suppliers.store, "kg")
    docs = {d.id: d for d in suppliers.store.active_documents().values()}
    doc_of = suppliers.store.chunk_docs()
    for k, chunks in enumerate(graph.edge_attrs["source_chunks"]):
        ids = [int(c) for c in str(chunks).split(LIST_SEPARATOR)]
        wanted = list(dict.fromkeys(docs[doc_of[c]].source for c in ids))
        assert graph.edge_attrs["documents"][k] == LIST_SEPARATOR.join(wanted)
        assert graph.edge_attrs["document_titles"][k] == LIST_SEPARATOR.join(
            dict.fromkeys(docs[doc_of[c]].title for c in ids))
    assert all(graph.nodes["documents"]) and all(graph.edge_attrs["documents"])
    assert any(".md" in d for d in graph.edge_attrs["documents"])  # file paths, not only ids


def test_the_kg_export_leaves_co_occurrence_out_unless_asked(suppliers: HopGraph) -> None:
    suppliers.extract_concepts()  # the no-LLM concept graph: CO_OCCURS edges beside the typed triples
    kg = suppliers.knowledge_graph
    co = sum(r.relation == CO_OCCURS for r in kg.relations)
    assert co > 0
    typed = build_export_graph(suppliers.store, "kg")
    everything = build_export_graph(suppliers.store, "kg", with_cooccurrence=True)
    assert CO_OCCURS not in typed.edge_attrs["relation"]
    assert typed.edge_count == len(kg.relations) - co
    assert everything.edge_count == len(kg.relations)
