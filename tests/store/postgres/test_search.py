"""Searches that run inside PostgreSQL, each checked against the Python code that does the same:
path queries (`WITH RECURSIVE`) against the breadth-first walk, vector seeds + links (one
statement) against numpy, full-text ranks against the words they match."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.query.paths import find_paths
from hopgraph.records.documents import Document
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.store import open_store
from hopgraph.text.bm25 import keyword_terms

from ...query.test_paths import TWO_ROUTES, graph_of, routes

CASES = [
    (TWO_ROUTES, "T", {"max_hops": 2, "follow": "all"}),
    (TWO_ROUTES, "T", {"max_hops": 1, "follow": "all"}),
    (TWO_ROUTES, "A", {"direction": "out", "max_hops": 2, "follow": "all"}),
    (graph_of(("A", "SUPPLIES", "X"), ("X", "SUPPLIES", "A"), ("X", "SUPPLIES", "T")), "T",
     {"max_hops": 4, "follow": "all"}),  # a cycle
    (graph_of(("P", "PART_OF", "A"), ("A", "SUPPLIES", "X"), ("X", "SUPPLIES", "T")), "T",
     {"max_hops": 3, "end_type": "person", "follow": "all"}),
    (graph_of(("X", "LOCATED_IN", "T"), ("X", "SUPPLIES", "Y"), ("Y", "SUPPLIES", "A")), "T",
     {"max_hops": 3, "follow": {"LOCATED_IN": "forward", "SUPPLIES": "reverse"}}),
    (graph_of(("X", "LOCATED_IN", "T"), ("X", "SUPPLIES", "Y"), ("Y", "SUPPLIES", "A")), "T",
     {"max_hops": 3}),  # the default depends-on senses
    (graph_of(("X", "SUPPLIES", "T", (10,), "2016-01-01", "2022-12-31"), ("Y", "SUPPLIES", "T", (20,), "2025", None),
              ("A", "SUPPLIES", "X", (30,), None, "2020-12-31")), "T",
     {"as_of": "2019-06-30", "max_hops": 2, "follow": "all"}),
    (graph_of(("X", "SUPPLIES", "T", (10,), "2016-01-01", "2022-12-31"), ("Y", "SUPPLIES", "T", (20,), "2025", "9999"),
              ("A", "SUPPLIES", "X", (30,)), ("A", "SUPPLIES", "Y", (40,))), "T",
     {"max_hops": 2, "follow": "all"}),  # no date: today, where X's supply has ended and Y's has not
]


@pytest.fixture
def stored(pg_url: str) -> Iterator:
    store = open_store(pg_url)

    def save(graph: KnowledgeGraph):
        """The graph in the store, with the chunks its sources name (foreign keys want them)."""
        chunk_ids = sorted({s.chunk_id for r in graph.relations for s in r.sources})
        with store._transaction():
            store._db.execute("DELETE FROM documents")
            doc = store._db.execute("INSERT INTO documents (source, title, content_hash, added_at) "
                                    "VALUES ('t', 't', 'h', 'now') RETURNING id").fetchone()[0]
            store._db.executemany("INSERT INTO chunks (id, doc_id, ord, text, n_tokens, text_hash) "
                                  "VALUES (?, ?, 0, '', 0, '')", [(c, doc) for c in chunk_ids])
        store.replace_knowledge_graph(graph, [])
        return store

    yield save
    store.close()


@pytest.mark.parametrize(("graph", "to", "options"), CASES)
def test_paths_walked_in_sql_are_the_paths_walked_in_python(stored, graph, to, options) -> None:
    store = stored(graph)
    in_python = find_paths(graph, to, **options)
    in_sql = find_paths(store.knowledge_graph(), to, **options, walker=store)
    assert in_sql == in_python
    assert in_python  # every case finds something


def test_sql_routes_stop_at_max_paths_shortest_first(stored) -> None:
    store = stored(TWO_ROUTES)
    found = find_paths(store.knowledge_graph(), "T", max_hops=2, max_paths=3, follow="all", walker=store)
    assert len(found) == 3 and sorted(routes(found)[:2]) == ["X>T", "Y>T"]


@pytest.fixture
def tiny_pg(pg_url: str) -> Iterator[HopGraph]:
    """The tiny corpus in PostgreSQL, searched in process (a snapshot): what the SQL is checked against."""
    hg = HopGraph(pg_url, Settings(search_in="snapshot"), embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    yield hg
    hg.close()


def vector_links_in_numpy(hg: HopGraph, query: np.ndarray, seeds: int, top: int) -> list[tuple[int, int]]:
    """The same rule over the in-memory index: exact nearest seeds, then their link targets."""
    index = hg.search_index
    distance = 1 - index.vectors @ query / np.linalg.norm(query)
    first = sorted(range(len(index)), key=lambda r: (distance[r], index.table.ids[r]))[:seeds]
    targets = {int(t) for r in first for t in index.links[r].indices} - set(first)
    second = sorted(targets, key=lambda r: (distance[r], index.table.ids[r]))
    rows = [(r, 0) for r in first] + [(r, 1) for r in second]
    return [(int(index.table.ids[r]), step) for r, step in rows][:top]


@pytest.mark.parametrize(("question", "linked"), [("Who directed Big Stone Gap?", True),
                                                  ("Where is Greenwich Village?", False),  # it links nowhere
                                                  ("an author of novels", True)])
def test_vector_seeds_and_links_in_one_statement_match_numpy(tiny_pg: HopGraph, question: str, linked: bool) -> None:
    query = tiny_pg.embedder.embed([question])[0]
    in_sql = tiny_pg.store.vector_links(query, tiny_pg.embedder.name, seeds=1, top=8)
    assert [(chunk, step) for chunk, step, _ in in_sql] == vector_links_in_numpy(tiny_pg, query, 1, 8)
    assert any(step == 1 for _, step, _ in in_sql) == linked


def test_keyword_ranks_find_the_chunks_with_the_question_words(tiny_pg: HopGraph) -> None:
    ranked = tiny_pg.store.keyword_ranks(keyword_terms("Who directed the films?"), top=10)
    texts = tiny_pg.store.chunk_texts([chunk for chunk, _ in ranked])
    assert ranked and all("direct" in texts[c].lower() or "film" in texts[c].lower() for c, _ in ranked)
    assert [rank for _, rank in ranked] == sorted((rank for _, rank in ranked), reverse=True)


def embedded_ranking(hg: HopGraph, question: str) -> list[tuple[int, float]]:
    """The in-process bm25s scores of the snapshot, as (chunk id, score), best first, ties by id."""
    index = hg.search_index
    scores = index.keyword.scores(question)
    found = [(int(index.table.ids[r]), float(scores[r])) for r in np.flatnonzero(scores > 0)]
    return sorted(found, key=lambda hit: (-hit[1], hit[0]))


@pytest.mark.parametrize("question", ["American film producer", "author based in New York City", "stone tools",
                                      "Who directed the films?", "film film producer",  # a term asked twice
                                      "Greenwich Village's best-selling author, 2014"])
def test_bm25_in_sql_is_the_embedded_bm25(tiny_pg: HopGraph, question: str) -> None:
    """The same terms and the same formula: the same chunks in the same order with the same scores
    (to float32's precision, bm25s's), while every term has fewer postings than the per-term bound."""
    expected = embedded_ranking(tiny_pg, question)
    in_sql = tiny_pg.store.keyword_ranks(keyword_terms(question), top=100)
    assert expected and [chunk for chunk, _ in in_sql] == [chunk for chunk, _ in expected]
    assert [score for _, score in in_sql] == pytest.approx([score for _, score in expected], rel=1e-5)


@pytest.mark.parametrize("question", ["the of a", "Was it in the? And if not, then there they will be.", "", "zyxwv"])
def test_a_question_of_stopwords_or_unknown_words_ranks_nothing(tiny_pg: HopGraph, question: str) -> None:
    assert tiny_pg.store.keyword_ranks(keyword_terms(question), top=10) == []


def test_a_common_term_is_read_only_up_to_the_per_term_bound_best_impact_first(tiny_pg: HopGraph) -> None:
    """One term in several chunks, one posting read: the chunk where it weighs most (one write, so
    the impacts' mean length is the scores' own). Two terms, two postings each: at most four
    candidates, each scored again over both terms, so exactly as in the full ranking."""
    full = tiny_pg.store.keyword_ranks(["film"], top=100)
    assert len(full) > 2
    assert tiny_pg.store.keyword_ranks(["film"], top=100, per_term=1) == full[:1]
    both = dict(tiny_pg.store.keyword_ranks(["film", "produc"], top=100))
    bounded = tiny_pg.store.keyword_ranks(["film", "produc"], top=100, per_term=2)
    assert len(both) > len(bounded) and len(bounded) <= 4
    assert [score for _, score in bounded] == pytest.approx([both[chunk] for chunk, _ in bounded], rel=1e-9)


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("question", ["Who directed Big Stone Gap?", "an author of novels", "stone tools"])
def test_nearest_chunks_are_numpys_nearest_with_their_cosines(tiny_pg: HopGraph, question: str, exact: bool) -> None:
    """The exact scan (ties by id, as numpy's order here) and, on a store this small, where it
    scans every list, the IVF index (in any order among equal cosines)."""
    index = tiny_pg.search_index
    query = tiny_pg.embedder.embed_query(question)
    cosine = {int(chunk): float(c) for chunk, c in zip(index.table.ids, index.vectors @ query, strict=True)}
    expected = sorted(cosine, key=lambda chunk: (-cosine[chunk], chunk))[:4]
    found = tiny_pg.store.nearest_chunks(query, tiny_pg.embedder.name, 4, exact)
    assert [c for _, c in found] == pytest.approx([cosine[chunk] for chunk in expected], abs=1e-5)
    assert all(c == pytest.approx(cosine[chunk], abs=1e-5) for chunk, c in found)
    if exact:
        assert [chunk for chunk, _ in found] == expected


def test_threads_sharing_one_store_search_at_once_without_failing(tiny_pg: HopGraph) -> None:
    """`serve`'s reader shares one connection between request threads: each search's transaction
    block (its `SET LOCAL`) is had alone, never nested in another thread's and ended out of order."""
    query = tiny_pg.embedder.embed_query("Who directed Big Stone Gap?")
    expected = {exact: tiny_pg.store.nearest_chunks(query, tiny_pg.embedder.name, 4, exact) for exact in (True, False)}

    def search(i: int) -> bool:
        exact = i % 2 == 0
        found = tiny_pg.store.nearest_chunks(query, tiny_pg.embedder.name, 4, exact)
        linked = tiny_pg.store.vector_links(query, tiny_pg.embedder.name, 2, 5)
        return found == expected[exact] and bool(linked)

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(search, range(400)))


def keyword_counts(db) -> tuple:
    """What the counts say and what the postings and chunks hold."""
    stored = db.execute("SELECT chunks, words FROM chunk_stats").fetchone()
    actual = db.execute("SELECT (SELECT count(*) FROM chunks), (SELECT coalesce(sum(tf), 0) FROM postings)").fetchone()
    df = db.execute("SELECT term, df FROM keyword_terms ORDER BY term").fetchall()
    counted = db.execute("SELECT term, count(*) FROM postings GROUP BY term ORDER BY term").fetchall()
    return tuple(stored), tuple(actual), [tuple(r) for r in df], [tuple(r) for r in counted]


def test_removal_takes_its_postings_and_counts_and_the_ranking_follows(tiny_pg: HopGraph) -> None:
    db = tiny_pg.store._db
    gap = next(d for d in tiny_pg.store.active_documents().values() if d.title == "Gap Inc.")
    assert any(c in tiny_pg.store.chunk_texts([c]) for c, _ in tiny_pg.store.keyword_ranks(["cloth", "retail"], 5))
    tiny_pg.remove([str(gap.id)])
    assert tiny_pg.store.keyword_ranks(keyword_terms("clothing retailer"), 5) == []
    stored, actual, df, counted = keyword_counts(db)
    assert stored == actual and stored[0] == len(TINY_CORPUS) - 1 and df == counted
    assert db.execute("SELECT count(*) FROM postings WHERE chunk_id NOT IN (SELECT id FROM chunks)").fetchone()[0] == 0
    for question in ["American film producer", "a San Francisco company", "Who directed the films?"]:
        expected = embedded_ranking(tiny_pg, question)  # the snapshot is built again over what is left
        in_sql = tiny_pg.store.keyword_ranks(keyword_terms(question), top=100)
        assert [c for c, _ in in_sql] == [c for c, _ in expected]
        assert [s for _, s in in_sql] == pytest.approx([s for _, s in expected], rel=1e-5)


def test_a_changed_document_replaces_its_postings(tiny_pg: HopGraph) -> None:
    changed = Document("Gap Inc.", "Gap Inc. is a retailer of denim, based in San Francisco.", "tiny")
    tiny_pg.index_documents([changed], replace_sources=False)
    stored, actual, df, counted = keyword_counts(tiny_pg.store._db)
    assert stored == actual and df == counted and stored[0] == len(TINY_CORPUS)
    assert tiny_pg.store.keyword_ranks(["cloth"], 5) == []
    denim = embedded_ranking(tiny_pg, "denim")
    assert denim and [c for c, _ in tiny_pg.store.keyword_ranks(["denim"], 5)] == [c for c, _ in denim]
