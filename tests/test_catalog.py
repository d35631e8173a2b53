"""The store's documents as a list and one document's chunks in order."""

from __future__ import annotations

import pytest

from hopgraph.catalog import document_chunks, document_list
from hopgraph.errors import InputError


def test_the_list_has_every_document_with_its_chunk_count(tiny_graph):
    listed = document_list(tiny_graph)
    stored = tiny_graph.store.active_documents().values()
    assert sorted(d["id"] for d in listed) == sorted(d.id for d in stored)
    assert sum(d["chunks"] for d in listed) == len(tiny_graph.search_index.table.ids)
    assert all(d["chunks"] >= 1 and d["title"] for d in listed)


def test_a_documents_chunks_come_in_order_with_citation_and_text(tiny_graph):
    first = document_list(tiny_graph)[0]
    one = document_chunks(tiny_graph, first["id"])
    assert (one["id"], one["title"], one["source"]) == (first["id"], first["title"], first["source"])
    assert [c["ord"] for c in one["chunks"]] == sorted(c["ord"] for c in one["chunks"])
    assert len(one["chunks"]) == first["chunks"] and all(c["text"] and c["citation"] for c in one["chunks"])


def test_an_unknown_document_is_an_error_naming_it(tiny_graph):
    with pytest.raises(InputError, match="no document with id 12345"):
        document_chunks(tiny_graph, 12345)
