"""The document tables of every backend: one transaction per apply, the vector cache, withdrawal."""

from __future__ import annotations

import hashlib
import time

import numpy as np
import pytest

from hopgraph.errors import HopgraphError, StoreBusy
from hopgraph.ingest.carry import carry_facts
from hopgraph.linkgraph.links import build_name_graph
from hopgraph.records.documents import Chunk, ChunkTable, Document, DocumentChange, RunRecord
from hopgraph.records.names import GraphRows
from hopgraph.store import Store, open_store
from hopgraph.store.base import GraphBuilder

MODEL = "test-model"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def upsert(title: str, *chunk_texts: str, source: str = "src") -> tuple[Document, str, list[tuple[Chunk, str]]]:
    doc = Document(title, " ".join(chunk_texts), source)
    chunks = [(Chunk(title, i, text, len(text.split())), sha(text)) for i, text in enumerate(chunk_texts)]
    return doc, sha(doc.text), chunks


def no_graph(_: ChunkTable) -> GraphRows:
    return GraphRows(names=[], mentions=[], links=[])


def apply(store: Store, change: DocumentChange, build: GraphBuilder = build_name_graph) -> GraphRows:
    run = RunRecord("index", "2026-01-01T00:00:00", lambda: "{}")
    return store.apply(change, build, {"graph_signature": "sig"}, run, carry_facts)


def table_state(table: ChunkTable) -> tuple:
    return table.ids.tolist(), table.doc_ids.tolist(), table.texts, table.text_hashes, table.titles


def count_rows(store: Store, table: str) -> int:
    return store._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


@pytest.fixture
def store(store_location: str) -> Store:
    s = open_store(store_location)
    yield s
    s.close()


FILM = upsert("Big Stone Gap (film)", "Big Stone Gap was directed by Adriana Trigiani.", "It opened in 2014.")
AUTHOR = upsert("Adriana Trigiani", "Adriana Trigiani is an author.")
VILLAGE = upsert("Greenwich Village", "Greenwich Village is in Manhattan.")


def test_applied_documents_are_active_and_their_chunks_are_in_the_table(store: Store) -> None:
    apply(store, DocumentChange(upserts=[FILM, AUTHOR]))
    active = store.active_documents()
    assert set(active) == {("src", "Big Stone Gap (film)"), ("src", "Adriana Trigiani")}
    assert active[("src", "Adriana Trigiani")].content_hash == AUTHOR[1]
    table = store.chunk_table()
    assert table.texts == [c.text for c, _ in FILM[2]] + [c.text for c, _ in AUTHOR[2]]
    assert table.text_hashes == [h for _, h in FILM[2]] + [h for _, h in AUTHOR[2]]
    assert sorted(table.titles.values()) == ["Adriana Trigiani", "Big Stone Gap (film)"]
    assert [table.titles[d] for d in table.doc_ids.tolist()] == ["Big Stone Gap (film)"] * 2 + ["Adriana Trigiani"]


def test_apply_stores_the_graph_built_over_the_result(store: Store) -> None:
    graph = apply(store, DocumentChange(upserts=[FILM, AUTHOR]))
    names, links = store.name_graph().names, store.name_graph().links
    assert [name.surface for name in names] == [n.surface for n in graph.names]
    assert len(links) == len(graph.links) > 0
    table = store.chunk_table()
    film_rows = [c for c, d in zip(table.ids.tolist(), table.doc_ids.tolist(), strict=True)
                 if table.titles[d] == "Big Stone Gap (film)"]
    surfaces = {name.id: name.surface for name in names}
    assert any(k.source_chunk == film_rows[0] and surfaces[k.name_id] == "Adriana Trigiani" for k in links)


def test_failing_graph_builder_leaves_everything_as_before(store: Store) -> None:
    apply(store, DocumentChange(upserts=[FILM, AUTHOR]))
    before = (table_state(store.chunk_table()), store.active_documents(), store.name_graph(), store.meta(),
              count_rows(store, "runs"))

    def broken(_: ChunkTable) -> GraphRows:
        raise RuntimeError("graph builder failed")

    author_changed = upsert("Adriana Trigiani", "Adriana Trigiani is a best-selling author.")
    film_id = store.active_documents()[("src", "Big Stone Gap (film)")].id
    change = DocumentChange(upserts=[author_changed, VILLAGE], withdrawn=[film_id])
    with pytest.raises(RuntimeError, match="graph builder failed"):
        store.apply(change, broken, {"graph_signature": "other"}, ("index", "t", "{}"), carry_facts)

    after = (table_state(store.chunk_table()), store.active_documents(), store.name_graph(), store.meta(),
             count_rows(store, "runs"))
    assert after == before


def test_store_is_usable_after_a_rolled_back_apply(store: Store) -> None:
    def broken(_: ChunkTable) -> GraphRows:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.apply(DocumentChange(upserts=[FILM]), broken, {}, ("index", "t", "{}"), carry_facts)
    apply(store, DocumentChange(upserts=[AUTHOR]))
    assert set(store.active_documents()) == {("src", "Adriana Trigiani")}


def test_upsert_of_a_known_document_replaces_its_chunks(store: Store) -> None:
    apply(store, DocumentChange(upserts=[FILM, AUTHOR]))
    film_id = store.active_documents()[("src", FILM[0].title)].id
    new_film = upsert("Big Stone Gap (film)", "A new single paragraph.")
    apply(store, DocumentChange(upserts=[new_film]))
    assert store.active_documents()[("src", FILM[0].title)].id == film_id
    table = store.chunk_table()
    film_texts = [t for t, d in zip(table.texts, table.doc_ids.tolist(), strict=True) if d == film_id]
    assert film_texts == ["A new single paragraph."]


def test_withdrawn_documents_disappear_from_table_and_active_documents(store: Store) -> None:
    apply(store, DocumentChange(upserts=[FILM, AUTHOR, VILLAGE]))
    author_id = store.active_documents()[("src", "Adriana Trigiani")].id
    apply(store, DocumentChange(withdrawn=[author_id]))
    assert ("src", "Adriana Trigiani") not in store.active_documents()
    table = store.chunk_table()
    assert author_id not in table.doc_ids.tolist()
    assert author_id not in table.titles
    assert "Adriana Trigiani is an author." not in table.texts
    assert store.name_graph().links == []  # the only links pointed at the author's chunk


def test_withdrawn_document_comes_back_when_upserted_again(store: Store) -> None:
    apply(store, DocumentChange(upserts=[AUTHOR]))
    author_id = store.active_documents()[("src", "Adriana Trigiani")].id
    apply(store, DocumentChange(withdrawn=[author_id]))
    apply(store, DocumentChange(upserts=[AUTHOR]))
    assert store.active_documents()[("src", "Adriana Trigiani")].id == author_id
    assert store.chunk_table().texts == ["Adriana Trigiani is an author."]


def test_same_title_in_two_sources_is_two_documents(store: Store) -> None:
    apply(store, DocumentChange(upserts=[AUTHOR, upsert("Adriana Trigiani", "Another text.", source="other")]))
    assert set(store.active_documents()) == {("src", "Adriana Trigiani"), ("other", "Adriana Trigiani")}


# --- vectors -----------------------------------------------------------------------------------

def test_reopening_the_store_sees_the_data(store_location: str) -> None:
    first = open_store(store_location)
    apply(first, DocumentChange(upserts=[FILM, AUTHOR]))
    first.save_vectors({"h": np.arange(3, dtype=np.float32)}, MODEL)
    state, active, graph = table_state(first.chunk_table()), first.active_documents(), first.name_graph()
    meta = first.meta()
    first.close()

    reopened = open_store(store_location, create=False)
    try:
        assert table_state(reopened.chunk_table()) == state
        assert reopened.active_documents() == active
        assert reopened.name_graph() == graph
        assert reopened.meta() == meta == {"graph_signature": "sig"}
        assert reopened.cached_vectors(["h"], MODEL)["h"].tolist() == [0, 1, 2]
    finally:
        reopened.close()


def test_vectors_round_trip_as_float32(store: Store) -> None:
    rng = np.random.default_rng(0)
    vectors = {"h1": rng.standard_normal(8), "h2": rng.standard_normal(8).astype(np.float32)}
    store.save_vectors(vectors, MODEL)
    cached = store.cached_vectors(["h1", "h2", "h3"], MODEL)
    assert set(cached) == {"h1", "h2"}
    for key, vector in vectors.items():
        assert cached[key].dtype == np.float32
        np.testing.assert_array_equal(cached[key], vector.astype(np.float32))


def test_vectors_are_kept_per_model(store: Store) -> None:
    store.save_vectors({"h1": np.ones(4)}, MODEL)
    assert store.cached_vectors(["h1"], "another-model") == {}


def test_cached_vectors_handles_more_hashes_than_one_query_holds(store: Store) -> None:
    vectors = {f"h{i}": np.full(2, i, dtype=np.float32) for i in range(1200)}
    store.save_vectors(vectors, MODEL)
    cached = store.cached_vectors(list(vectors), MODEL)
    assert len(cached) == 1200
    assert cached["h1199"].tolist() == [1199.0, 1199.0]


def test_vector_matrix_stacks_rows_in_the_order_asked(store: Store) -> None:
    store.save_vectors({"a": np.array([1, 0], np.float32), "b": np.array([0, 1], np.float32)}, MODEL)
    matrix = store.vector_matrix(["b", "a", "b"], MODEL)
    assert matrix.tolist() == [[0, 1], [1, 0], [0, 1]]


def test_vector_matrix_with_missing_vectors_names_how_many(store: Store) -> None:
    store.save_vectors({"a": np.ones(2)}, MODEL)
    with pytest.raises(HopgraphError, match=r"\b2 chunk") as caught:
        store.vector_matrix(["a", "b", "c"], MODEL)
    assert MODEL in str(caught.value)


def test_pages_title_sources_and_citations_round_trip(store: Store) -> None:
    report = Document("Casting review", "Page one.\n\nPage three.", "/docs/report.pdf", "metadata",
                      ((0, 1), (11, 3)))
    chunks = [(Chunk("Casting review", 0, "Page one.", 2, page=1), sha("Page one.")),
              (Chunk("Casting review", 1, "Page three.", 2, page=3), sha("Page three."))]
    notes = Document("notes", "Plain notes.", "/docs/notes.md", "file")
    apply(store, DocumentChange(upserts=[(report, sha(report.text), chunks),
                                         (notes, sha(notes.text), [(Chunk("notes", 0, "Plain notes.", 2), "n")]),
                                         AUTHOR]))
    table = store.chunk_table()
    assert table.pages == [1, 3, None, None] and table.ords == [0, 1, 0, 0]
    assert sorted(table.title_sources.values()) == ["file", "metadata", "record"]
    cited = ["report.pdf#p1", "report.pdf#p3", "notes.md#1", "Adriana Trigiani#1"]
    assert [table.source_of_row(row) for row in range(4)] == cited
    assert store.chunk_citations(table.ids.tolist()) == dict(zip(table.ids.tolist(), cited, strict=True))
    assert store.chunk_citations([]) == {}
    assert store.active_documents()[("/docs/report.pdf", "Casting review")].title_source == "metadata"


def test_chunk_columns_are_the_chunk_table_without_its_texts(store: Store) -> None:
    report = Document("Casting review", "Page one.", "/docs/report.pdf", "metadata", ((0, 1),))
    chunks = [(Chunk("Casting review", 0, "Page one.", 2, page=4), sha("Page one."))]
    apply(store, DocumentChange(upserts=[FILM, (report, sha(report.text), chunks), AUTHOR]))
    apply(store, DocumentChange(withdrawn=[store.active_documents()[("src", "Adriana Trigiani")].id]))
    table = store.chunk_table()
    columns, documents = store.chunk_columns()
    assert columns["ids"].tolist() == table.ids.tolist() and columns["doc_ids"].tolist() == table.doc_ids.tolist()
    assert columns["ords"].tolist() == table.ords == [0, 1, 0]
    assert columns["pages"].tolist() == [-1, -1, 4] and table.pages == [None, None, 4]
    assert columns["continues"].tolist() == table.continues
    assert documents == {"titles": table.titles, "sources": table.sources, "title_sources": table.title_sources}


def test_chunk_columns_of_an_empty_store_are_empty_arrays(store: Store) -> None:
    columns, documents = store.chunk_columns()
    assert all(len(column) == 0 for column in columns.values()) and columns["ids"].dtype == np.int64
    assert documents == {"titles": {}, "sources": {}, "title_sources": {}}


def test_a_retitled_document_changes_its_title_source_in_place(store: Store) -> None:
    apply(store, DocumentChange(upserts=[FILM]))
    before = store.chunk_table()
    doc_id = store.active_documents()[("src", "Big Stone Gap (film)")].id
    apply(store, DocumentChange(retitled=[(doc_id, "heading")]))
    after = store.chunk_table()
    assert after.title_sources == {doc_id: "heading"}
    assert after.ids.tolist() == before.ids.tolist()  # same chunks: their facts and vectors stay theirs


def test_a_write_told_not_to_wait_gives_up_at_once_then_writes_wait_again(store_location: str) -> None:
    first, second = open_store(store_location), open_store(store_location, lock_timeout=0.5)
    try:
        with first._transaction():
            started = time.monotonic()
            with second.waiting_at_most(0), pytest.raises(StoreBusy, match="is locked by"):
                second.set_meta({"k": "v"})
            assert time.monotonic() - started < 0.3  # not the half second a write waits otherwise
            with pytest.raises(StoreBusy):
                second.set_meta({"k": "v"})
            assert time.monotonic() - started >= 0.45  # outside the block, the store's timeout again
        second.set_meta({"k": "v"})
        assert first.meta()["k"] == "v"
    finally:
        first.close()
        second.close()
