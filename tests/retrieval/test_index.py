"""The in-memory search index: chunk rows, the CSR link matrix over them, and question names."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.linkgraph.names import strip_disambiguation
from hopgraph.records.documents import Document
from hopgraph.retrieval import stages

FILLER = ("The harbour was busy with fishing boats every morning, and the quay was lined with stalls selling "
          "salt, rope, tar and lanterns to the crews. ")

# Small chunks (16 tokens, no overlap) so that long documents have several chunks and only some of
# a document's chunks mention a name.
ATLAS_V1 = Document("Harbour Atlas", "An early draft of the atlas.", "maps")
ATLAS = Document("Harbour Atlas", FILLER + "The atlas was drawn by Nadia Brenner.", "maps")
MAPS_CORPUS = [
    ATLAS,
    Document("Nadia Brenner (cartographer)", "Nadia Brenner was a cartographer. " + FILLER
             + "She is best known for the Harbour Atlas.", "maps"),
    Document("Port Sellin", "Port Sellin is a town whose quay appears in the Harbour Atlas.", "maps"),
    Document("Rope making", FILLER, "maps"),
]


@pytest.fixture
def maps_graph(tmp_path: Path) -> HopGraph:
    hg = HopGraph(str(tmp_path / "maps.db"), Settings(chunk_tokens=16, chunk_overlap=0, chunking="windows",
                                                      names_from="titles"),
                  embedder=BagOfWordsEmbedder())
    # Index a first version, then the real one: the atlas's chunks are rewritten with new ids, so
    # chunk ids are no longer row + 1 and a row/id mix-up shows.
    hg.index_documents([ATLAS_V1, *MAPS_CORPUS[1:]])
    hg.index_documents(MAPS_CORPUS)
    yield hg
    hg.close()


def mentions(text: str, surface: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(surface)}(?!\w)", text) is not None


def csr_links(index) -> set[tuple[int, int, str]]:
    coo = index.links.tocoo()
    return {(int(r), int(c), index.name_surfaces[int(n)]) for r, c, n in zip(coo.row, coo.col, coo.data, strict=True)}


def test_chunk_ids_are_not_simply_row_numbers(maps_graph):
    ids = maps_graph.search_index.table.ids.tolist()
    assert ids != list(range(1, len(ids) + 1))
    assert ids == sorted(ids)


def test_link_matrix_rows_and_columns_are_the_mentioning_and_the_named_chunks(maps_graph):
    index = maps_graph.search_index
    table = index.table
    # Expected from the chunk texts alone: row r → every chunk of another document whose name r mentions.
    expected = set()
    for r, text in enumerate(table.texts):
        for c in range(len(table)):
            target_doc = int(table.doc_ids[c])
            name = strip_disambiguation(table.titles[target_doc])
            if target_doc != int(table.doc_ids[r]) and mentions(text, name):
                expected.add((r, c, name))
    assert csr_links(index) == expected
    assert index.links.shape == (len(table), len(table))


def test_only_the_chunks_that_mention_a_name_link_and_they_link_to_every_chunk_of_its_document(maps_graph):
    index = maps_graph.search_index
    atlas_rows = [r for r in range(len(index)) if index.title_of_row(r) == "Harbour Atlas"]
    nadia_rows = [r for r in range(len(index)) if index.title_of_row(r) == "Nadia Brenner (cartographer)"]
    assert len(atlas_rows) > 1 and len(nadia_rows) > 1  # the corpus does what it is meant to
    mentioning = [r for r in atlas_rows if "Nadia Brenner" in index.table.texts[r]]
    silent = [r for r in atlas_rows if "Nadia Brenner" not in index.table.texts[r]]
    assert mentioning and silent
    for row in mentioning:
        assert sorted(target for target, _, _ in stages.linked_from(index, [row])) == nadia_rows
    for row in silent:
        assert stages.linked_from(index, [row]) == []


def test_link_matrix_agrees_with_the_stored_links_by_chunk_id(maps_graph):
    index = maps_graph.search_index
    ids = index.table.ids
    stored = [(k.source_chunk, k.target_chunk, k.name_id) for k in maps_graph.store.name_graph().links]
    coo = index.links.tocoo()
    from_matrix = {(int(ids[r]), int(ids[c]), int(n)) for r, c, n in zip(coo.row, coo.col, coo.data, strict=True)}
    assert from_matrix == {(s, t, n) for s, t, n in stored}
    assert len(stored) > 0


def test_title_of_row_and_the_chunk_table_stay_row_aligned(maps_graph):
    index = maps_graph.search_index
    for row in range(len(index)):
        title = index.title_of_row(row)
        doc = next(d for d in MAPS_CORPUS if d.title == title)
        assert index.table.texts[row] in doc.text
    assert index.vectors.shape == (len(index), BagOfWordsEmbedder.dim)
    for row in range(len(index)):
        expected = BagOfWordsEmbedder().embed_query(index.table.texts[row])
        assert np.allclose(index.vectors[row], expected)


# --- which names count in a question ---------------------------------------------------------------

# "Io" is too short and "1989" only digits: neither makes links nor counts as a name in a question.
# "Paris" is mentioned by seven documents, a hub ("common"): it makes no links but still counts;
# "Louvre", mentioned once, makes a link.
PARIS_DOCS = ["Louvre", "Seine", "Eiffel Tower", "Montmartre", "Orly Airport", "Sorbonne"]
NAMES_CORPUS = [
    Document("Io (moon)", "Io is a moon of Jupiter.", "names"),
    Document("1989", "1989 was a year of change in Europe.", "names"),
    Document("Paris", "Paris is the capital of France.", "names"),
    *[Document(title, f"{title} is a landmark in Paris; a guide to it was printed in 1989.", "names")
      for title in PARIS_DOCS],
    Document("Mona Lisa", "The Mona Lisa hangs in the Louvre.", "names"),
]


@pytest.fixture
def names_index(tmp_path: Path):
    hg = HopGraph(str(tmp_path / "names.db"), Settings(names_from="titles"), embedder=BagOfWordsEmbedder())
    hg.index_documents(NAMES_CORPUS)
    yield hg
    hg.close()


def test_the_names_are_filtered_for_the_expected_reasons(names_index):
    filtered = {name.surface: name.filtered for name in names_index.store.name_graph().names}
    assert filtered["Io"] == "short"
    assert filtered["1989"] == "numeric"
    assert filtered["Paris"] == "common"
    assert filtered["Louvre"] == ""


def test_short_and_numeric_names_are_not_question_names_but_common_ones_are(names_index):
    index = names_index.search_index
    found = [index.question_names.surfaces[i] for i in index.question_names.find("Did Io or Paris change in 1989?")]
    assert [surface.casefold() for surface in found] == ["paris"]
    named_rows = stages.names_in_question(index, "Did Io or Paris change in 1989?")
    assert {index.title_of_row(row) for row, _ in named_rows} == {"Paris"}


def test_a_common_name_counts_in_a_question_but_makes_no_links(names_index):
    index = names_index.search_index
    names = names_index.store.name_graph().names
    paris_id = next(name.id for name in names if name.surface == "Paris")
    louvre_id = next(name.id for name in names if name.surface == "Louvre")
    link_names = set(index.links.data.tolist())
    assert louvre_id in link_names  # Mona Lisa → Louvre
    assert paris_id not in link_names
    assert stages.names_in_question(index, "What is Paris the capital of?")


def test_links_whose_chunk_is_not_a_row_are_dropped_and_the_rest_keep_their_rows_and_weights():
    """A replica maps every stored link to rows by array lookups (retrieval/index.py `_link_rows`):
    chunk ids in any order, a link into a chunk the loaded rows do not hold (written since) left out."""
    from hopgraph.records.names import LinkColumns, StoredLink
    from hopgraph.retrieval.index import _link_rows

    ids = np.array([40, 7, 19], dtype=np.int64)  # rows 0, 1, 2
    links = LinkColumns.of([(7, 40, 3, 0.5), (19, 99, 4, 1.0), (40, 19, 5, 0.25), (98, 7, 6, 1.0)])
    sources, targets, names, weights = _link_rows(ids, links)
    assert sources.tolist() == [1, 0] and targets.tolist() == [0, 2]
    assert names.tolist() == [3, 5] and weights.tolist() == [0.5, 0.25]
    assert list(links)[2] == StoredLink(40, 19, 5, 0.25)  # iterating gives the stored rows back
    assert [len(c) for c in _link_rows(ids, LinkColumns.of([]))] == [0, 0, 0, 0]
    assert [len(c) for c in _link_rows(np.array([], dtype=np.int64), links)] == [0, 0, 0, 0]


def test_a_surface_names_the_rows_most_about_it_over_all_its_namesakes():
    """`_rows_named` (array lookups since a replica reloads it per write): namesakes fold by case,
    a row keeps its best namesake's weight, only rows at the surface's best weight are kept, a
    filtered or document-less name names nothing, and a chunk the table lacks is left out."""
    from hopgraph.records.names import AboutColumns, LinkColumns, NameGraph, StoredName
    from hopgraph.retrieval.index import _rows_named

    ids = np.array([10, 11, 12, 13], dtype=np.int64)  # rows 0–3
    names = [StoredName(1, "Paris", 1, ""), StoredName(2, "paris", 2, ""), StoredName(3, "Texas", 3, ""),
             StoredName(4, "He", 4, "short"), StoredName(5, "Gazetteer", None, "")]
    abouts = AboutColumns.of([(10, 1, 0.5), (11, 2, 1.0), (12, 2, 1.0), (13, 3, 0.25), (99, 3, 1.0),
                              (10, 4, 1.0), (10, 5, 1.0), (12, 1, 0.25)])
    named = _rows_named(NameGraph(names, LinkColumns.of([]), abouts), ids, {})
    assert named == {"paris": [1, 2], "texas": [3]}
    assert list(named) == ["paris", "texas"]  # in the order the names first say them
    no_rows = _rows_named(NameGraph(names, LinkColumns.of([]), abouts), np.array([], dtype=np.int64), {})
    assert no_rows == {}
    # a store written before aboutness: a name is about every chunk of its document
    older = _rows_named(NameGraph(names, LinkColumns.of([])), ids, {1: [0], 2: [1, 2], 3: [3]})
    assert older == {"paris": [0, 1, 2], "texas": [3]}


def test_a_one_word_name_that_begins_a_hub_s_name_is_not_looked_up():
    """"Corvane" of the hub "Corvane Brake Systems" means the hub; the headline most about the bare
    word is not the question's subject. The hub's full name, and other one-word names, still are."""
    from hopgraph.records.names import AboutColumns, LinkColumns, NameGraph, StoredName
    from hopgraph.retrieval.index import _rows_named

    ids = np.array([10, 11, 12], dtype=np.int64)
    names = [StoredName(1, "Corvane Brake Systems", 1, "common"), StoredName(2, "Corvane", 2, ""),
             StoredName(3, "Halvek", 3, ""), StoredName(4, "Anvaya Foundry", 3, "")]
    abouts = AboutColumns.of([(10, 1, 1.0), (11, 2, 1.0), (12, 3, 1.0), (12, 4, 1.0)])
    named = _rows_named(NameGraph(names, LinkColumns.of([]), abouts), ids, {})
    assert named == {"corvane brake systems": [0], "halvek": [2], "anvaya foundry": [2]}
    not_a_hub = [StoredName(1, "Corvane Brake Systems", 1, ""), *names[1:]]
    assert "corvane" in _rows_named(NameGraph(not_a_hub, LinkColumns.of([]), abouts), ids, {})
