"""The store's documents as a list and one document's chunks in order."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from hopgraph.catalog import document_chunks, document_list, example_question
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError
from hopgraph.records.documents import Document, utc_now


def test_the_list_has_every_document_with_its_chunk_count(tiny_graph):
    listed = document_list(tiny_graph)
    stored = tiny_graph.store.active_documents().values()
    assert sorted(d["id"] for d in listed) == sorted(d.id for d in stored)
    assert sum(d["chunks"] for d in listed) == len(tiny_graph.search_index.table.ids)
    assert all(d["chunks"] >= 1 and d["title"] for d in listed)


def test_the_list_counts_each_documents_names_and_links_as_the_store_holds_them(tiny_graph):
    """Counted again from the store's name graph (chunk ids), not from the search index's matrix."""
    graph = tiny_graph.store.name_graph()
    doc_of_chunk = tiny_graph.store.chunk_docs()
    listed = {d["id"]: d for d in document_list(tiny_graph)}
    assert sum(d["links_out"] for d in listed.values()) == len(graph.links) > 0
    for doc_id, doc in listed.items():
        assert doc["links_out"] == sum(doc_of_chunk[k.source_chunk] == doc_id for k in graph.links)
        assert doc["links_in"] == sum(doc_of_chunk[k.target_chunk] == doc_id for k in graph.links)
        assert set(doc["names"]) == {n.surface for n in graph.names if n.doc_id == doc_id and not n.filtered}
    assert any(d["links_in"] for d in listed.values()) and any(d["names"] for d in listed.values())
    titled = [d for d in listed.values() if d["title"] in d["names"]]
    assert titled and all(d["names"][0] == d["title"] for d in titled)  # its own title leads its names


def test_the_list_says_when_each_text_was_written_and_an_update_renews_it(tmp_path, embedder):
    with HopGraph(str(tmp_path / "dated.db"), Settings(), embedder=embedder) as hg:
        before = utc_now()
        hg.index_documents([Document("Harbour notes", "The harbour opens at six.", "notes")])
        (first,) = document_list(hg)
        assert before <= first["added_at"] <= utc_now()
        time.sleep(1.1)  # the stamp is to the second
        hg.index_documents([Document("Harbour notes", "The harbour opens at seven.", "notes")])
        (again,) = document_list(hg)
        assert again["id"] == first["id"] and again["added_at"] > first["added_at"]


def test_an_empty_store_lists_nothing(tmp_path, embedder):
    with HopGraph(str(tmp_path / "empty.db"), Settings(), embedder=embedder) as hg:
        assert document_list(hg) == []


def test_a_documents_chunks_come_in_order_with_citation_and_text(tiny_graph):
    first = document_list(tiny_graph)[0]
    one = document_chunks(tiny_graph, first["id"])
    assert (one["id"], one["title"], one["source"]) == (first["id"], first["title"], first["source"])
    assert [c["ord"] for c in one["chunks"]] == sorted(c["ord"] for c in one["chunks"])
    assert len(one["chunks"]) == first["chunks"] and all(c["text"] and c["citation"] for c in one["chunks"])


def test_an_unknown_document_is_an_error_naming_it(tiny_graph):
    with pytest.raises(InputError, match="no document with id 12345"):
        document_chunks(tiny_graph, 12345)


def test_the_example_question_is_about_the_name_that_links_the_most_chunks(tiny_graph):
    graph = tiny_graph.store.name_graph()
    made = Counter(link.name_id for link in graph.links)
    surfaces = {name.id: name.surface for name in graph.names}
    most = max(made.values())
    question = example_question(tiny_graph)
    assert any(question == f"What do the documents say about {surfaces[n]}?" for n, c in made.items() if c == most)


def test_without_links_the_example_question_is_about_the_first_documents_title(tmp_path, embedder):
    with HopGraph(str(tmp_path / "one.db"), Settings(), embedder=embedder) as hg:
        hg.index_documents([Document("Harbour notes", "The harbour opens at six.", "notes")])
        assert example_question(hg) == "What is Harbour notes about?"
