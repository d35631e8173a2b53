"""Mention links: chunk A → every chunk of document B when A mentions a kept name of B."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from hopgraph.linkgraph.links import build_links, build_name_graph, in_link_counts, title_is_named_in
from hopgraph.records.documents import ChunkTable
from hopgraph.records.names import GazetteerEntry, GraphRows


def ints(*values: int) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def table(rows: list[tuple[int, int, str]], titles: dict[int, str]) -> ChunkTable:
    """A ChunkTable from (chunk id, doc id, text) rows."""
    return ChunkTable(ids=ints(*(r[0] for r in rows)), doc_ids=ints(*(r[1] for r in rows)),
                      texts=[r[2] for r in rows], text_hashes=[hashlib.sha256(r[2].encode()).hexdigest() for r in rows],
                      titles=titles)


def links_by_surface(graph: GraphRows) -> set[tuple[int, int, str]]:
    return {(source, target, graph.names[name].surface) for source, target, name, _ in graph.links}


def mentioned_surfaces(graph: GraphRows, chunk_id: int) -> set[str]:
    return {graph.names[name].surface for chunk, name in graph.mentions if chunk == chunk_id}


# --- build_links -------------------------------------------------------------------------------

def test_link_goes_to_every_chunk_of_the_named_document_and_keeps_the_name() -> None:
    chunk_docs = ints(10, 20, 20, 30)  # document 20 has two chunks (rows 1, 2)
    links = build_links(mention_rows=ints(0), mention_names=ints(7), name_docs={7: [20]}, chunk_docs=chunk_docs)
    assert sorted(zip(links.source.tolist(), links.target.tolist(), links.name_id.tolist(), strict=True)) == [
        (0, 1, 7), (0, 2, 7)]


def test_chunk_is_never_linked_to_its_own_document() -> None:
    chunk_docs = ints(10, 10, 20)
    # Row 0 mentions the name of its own document (10), whose other chunk is row 1.
    links = build_links(ints(0, 2), ints(1, 1), {1: [10]}, chunk_docs)
    pairs = set(zip(links.source.tolist(), links.target.tolist(), strict=True))
    assert pairs == {(2, 0), (2, 1)}


def test_each_chunk_pair_is_linked_once_even_through_several_names() -> None:
    chunk_docs = ints(10, 20)
    # Row 0 mentions two names of document 20, one of them twice.
    links = build_links(ints(0, 0, 0), ints(4, 5, 4), {4: [20], 5: [20]}, chunk_docs)
    assert len(links) == 1
    assert (links.source[0], links.target[0]) == (0, 1)
    assert links.name_id[0] in (4, 5)


def test_mention_of_a_name_without_documents_makes_no_link() -> None:
    links = build_links(ints(0), ints(9), {}, ints(10, 20))
    assert len(links) == 0


def test_in_link_counts_count_incoming_links_per_chunk() -> None:
    links = build_links(ints(0, 1, 3), ints(1, 1, 1), {1: [20]}, ints(10, 11, 20, 12))
    assert in_link_counts(links, 4).tolist() == [0, 0, 3, 0]


# --- build_name_graph --------------------------------------------------------------------------

FILM, AUTHOR, VILLAGE = 1, 2, 3
TITLES = {FILM: "Big Stone Gap (film)", AUTHOR: "Adriana Trigiani", VILLAGE: "Greenwich Village"}
ROWS = [
    (101, FILM, "Big Stone Gap is a 2014 film directed by Adriana Trigiani."),
    (102, AUTHOR, "Adriana Trigiani is an author based in Greenwich Village."),
    (103, AUTHOR, "Trigiani also wrote for television."),
    (104, VILLAGE, "Greenwich Village is a neighborhood in Manhattan."),
]


def test_mention_of_a_title_links_the_mentioning_chunk_to_the_named_document() -> None:
    graph = build_name_graph(table(ROWS, TITLES))
    links = links_by_surface(graph)
    assert (101, 102, "Adriana Trigiani") in links
    assert (101, 103, "Adriana Trigiani") in links
    assert (102, 104, "Greenwich Village") in links


def test_no_link_without_a_mention() -> None:
    graph = build_name_graph(table(ROWS, TITLES))
    sources_to_film = {source for source, target, _, _ in graph.links if target == 101}
    assert sources_to_film == set()  # nobody mentions "Big Stone Gap"
    assert not any(source == 104 for source, _, _, _ in graph.links)  # the village mentions no one


def test_a_document_mentioning_its_own_title_makes_no_self_link() -> None:
    graph = build_name_graph(table(ROWS, TITLES))
    chunk_doc = {chunk_id: doc for chunk_id, doc, _ in ROWS}
    assert all(chunk_doc[s] != chunk_doc[t] for s, t, _, _ in graph.links)
    assert "Adriana Trigiani" in mentioned_surfaces(graph, 102)  # the mention itself is still recorded


def test_numeric_name_is_filtered_and_makes_no_links_but_its_mentions_are_kept() -> None:
    titles = {1: "1989", 2: "Taylor Swift"}
    rows = [(11, 1, "1989 is an album."), (12, 2, "Taylor Swift released 1989 in 2014.")]
    graph = build_name_graph(table(rows, titles))
    assert {n.surface: n.filtered for n in graph.names}["1989"] == "numeric"
    assert "1989" in mentioned_surfaces(graph, 12)
    assert graph.links == []


def test_short_name_is_filtered_and_makes_no_links_but_its_mentions_are_kept() -> None:
    titles = {1: "Li", 2: "Chinese surnames"}
    rows = [(11, 1, "Li is a surname."), (12, 2, "Common surnames include Li and Wang.")]
    graph = build_name_graph(table(rows, titles), min_name_chars=3)
    assert {n.surface: n.filtered for n in graph.names}["Li"] == "short"
    assert "Li" in mentioned_surfaces(graph, 12)
    assert graph.links == []


def test_common_name_is_filtered_and_makes_no_links_but_its_mentions_are_kept() -> None:
    titles = {1: "Paris"} | {d: f"Place number {d}" for d in range(2, 9)}
    rows = [(10, 1, "Paris is a city.")] + [(10 + d, d, f"Place {d} is near Paris.") for d in range(2, 9)]
    graph = build_name_graph(table(rows, titles), max_name_doc_share=0.01)  # 8 documents mention Paris
    assert {n.surface: n.filtered for n in graph.names}["Paris"] == "common"
    assert all("Paris" in mentioned_surfaces(graph, 10 + d) for d in range(2, 9))
    assert graph.links == []


def test_same_name_under_the_hub_threshold_does_make_links() -> None:
    titles = {1: "Paris"} | {d: f"Place number {d}" for d in range(2, 5)}
    rows = [(10, 1, "Paris is a city.")] + [(10 + d, d, f"Place {d} is near Paris.") for d in range(2, 5)]
    graph = build_name_graph(table(rows, titles), max_name_doc_share=0.01)
    assert links_by_surface(graph) == {(10 + d, 10, "Paris") for d in range(2, 5)}


def test_gazetteer_alias_creates_links() -> None:
    rows = [(101, FILM, "Big Stone Gap was directed by Trigiani."), (102, AUTHOR, "Adriana Trigiani writes.")]
    without = build_name_graph(table(rows, TITLES))
    assert without.links == []
    entry = GazetteerEntry("Adriana Trigiani", ("Trigiani",), "person", "")
    graph = build_name_graph(table(rows, TITLES), gazetteer=[entry])
    assert links_by_surface(graph) == {(101, 102, "Trigiani")}


def test_gazetteer_alias_of_no_document_is_recorded_but_links_nothing() -> None:
    rows = [(101, FILM, "Produced by Gigliotti."), (102, AUTHOR, "Adriana Trigiani writes.")]
    entry = GazetteerEntry("Donna Gigliotti", ("Gigliotti",), "person", "")
    graph = build_name_graph(table(rows, TITLES), gazetteer=[entry])
    assert "Gigliotti" in mentioned_surfaces(graph, 101)
    assert graph.links == []


def test_two_documents_with_the_same_name_are_both_linked() -> None:
    titles = {1: "Big Stone Gap (film)", 2: "Big Stone Gap (town)", 3: "Adriana Trigiani"}
    rows = [(11, 1, "A film."), (12, 2, "A town."), (13, 3, "She grew up in Big Stone Gap.")]
    graph = build_name_graph(table(rows, titles))
    assert {(s, t) for s, t, _, _ in graph.links} == {(13, 11), (13, 12)}


def test_links_and_mentions_use_chunk_ids_not_rows() -> None:
    graph = build_name_graph(table(ROWS, TITLES))
    ids = {r[0] for r in ROWS}
    assert {c for c, _ in graph.mentions} <= ids
    assert {s for s, _, _, _ in graph.links} | {t for _, t, _, _ in graph.links} <= ids


def test_names_from_the_text_make_the_links_instead_of_the_titles() -> None:
    rows = [(101, FILM, "Big Stone Gap is a film by Adriana Trigiani."), (102, AUTHOR, "Trigiani writes novels.")]
    about = [{"Big Stone Gap": 1.0}, {"Trigiani": 1.0}]
    graph = build_name_graph(table(rows, TITLES), chunk_about=about, title_docs=set())
    assert {n.kind for n in graph.names} == {"text"}
    assert links_by_surface(graph) == {(101, 102, "Trigiani")}  # the title "Adriana Trigiani" is no name now


def test_a_link_carries_its_targets_aboutness_and_the_stronger_name_wins() -> None:
    titles = {1: "doc-1", 2: "doc-2"}
    rows = [(11, 1, "Nadia Brenner drew the Harbour Atlas."), (12, 2, "The Harbour Atlas is a map book."),
            (13, 2, "It names Nadia Brenner twice: Nadia Brenner.")]
    about = [{"Nadia Brenner": 1.0}, {"Harbour Atlas": 1.0}, {"Harbour Atlas": 0.5, "Nadia Brenner": 0.25}]
    graph = build_name_graph(table(rows, titles), chunk_about=about, title_docs=set())
    weights = {(s, t): w for s, t, _, w in graph.links}
    assert weights[(11, 12)] == 1.0 and weights[(11, 13)] == 0.5  # the atlas is the subject of 12 only
    assert (13, 11) not in weights or weights[(13, 11)] == 1.0
    assert (11, 13) in weights and (13, 12) not in weights  # 13 is itself about the atlas: no link through it
    abouts = {(c, graph.names[n].surface): w for c, n, w in graph.abouts}
    assert abouts[(13, "Nadia Brenner")] == 0.25 and abouts[(11, "Nadia Brenner")] == 1.0


def test_chunks_of_one_document_link_when_they_are_about_different_things() -> None:
    rows = [(11, 1, "Big Stone Gap is a film by Adriana Trigiani."), (12, 1, "Adriana Trigiani is an author.")]
    about = [{"Big Stone Gap": 1.0}, {"Adriana Trigiani": 1.0}]
    graph = build_name_graph(table(rows, {1: "doc-1"}), chunk_about=about, title_docs=set())
    assert links_by_surface(graph) == {(11, 12, "Adriana Trigiani")}


@pytest.mark.parametrize("title, text, named", [
    ("Big Stone Gap (film)", "Big Stone Gap is a 2014 film.", True),  # suffix stripped
    ("Andrew Wiggins", "Andrew Christian Wiggins (born 1995) is a Canadian basketball player.", True),
    ("Mike Bryan", "Michael Carl Bryan is an American tennis player.", False),  # one word of two: not enough
    ("doc-00042", "Doc Holliday was a gambler and dentist.", False),  # an id: its number is nowhere
])
def test_a_title_is_named_when_the_text_writes_it_or_most_of_its_words(title: str, text: str, named: bool) -> None:
    assert title_is_named_in(title, text) is named
