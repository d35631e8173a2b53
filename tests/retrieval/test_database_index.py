"""A search index served from PostgreSQL: the same hits as the embedded store within a stated
tolerance, nothing written locally, and another process's writes seen at the next question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError
from hopgraph.records.documents import Document
from hopgraph.retrieval.database_index import DatabaseKeywords, is_current
from hopgraph.retrieval.vector_search import FLOOR, MIN_CANDIDATES, DatabaseSearch

QUESTIONS = ["Where is the director of Big Stone Gap based?", "Who produced Big Stone Gap?",
             "american film", "stone tools in prehistory", "Which retailer is based in San Francisco?"]
KEYWORD_METHODS = ["bm25", "hybrid", "hybrid+names+links", "ppr", "auto"]
EXTRA = Document("Lower Manhattan", "Lower Manhattan is the southernmost part of Manhattan.", "tiny")


def open_graph(location: str, **settings: object) -> HopGraph:
    return HopGraph(location, Settings(**settings), embedder=BagOfWordsEmbedder())  # type: ignore[arg-type]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user cache directory, where a snapshot of a PostgreSQL store would be written."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def served(pg_url: str, cache: Path) -> Iterator[HopGraph]:
    hg = open_graph(pg_url)  # search_in "auto": the database, for a postgresql:// store
    hg.index_documents(TINY_CORPUS)
    yield hg
    hg.close()


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[HopGraph]:
    hg = open_graph(str(tmp_path / "tiny.db"))
    hg.index_documents(TINY_CORPUS)
    yield hg
    hg.close()


def top(hg: HopGraph, question: str, method: str) -> list[tuple[str, str]]:
    return [(h.title, h.text) for h in hg.search(question, method=method).hits]


def test_a_postgresql_store_is_searched_in_the_database_with_nothing_local(served: HopGraph, cache: Path) -> None:
    index = served.search_index
    assert index.origin == "database" and index.vectors.size == 0
    assert isinstance(index.vector_search, DatabaseSearch) and isinstance(index.keyword, DatabaseKeywords)
    hits = served.search("Who produced Big Stone Gap?", method="hybrid+names+links").hits
    assert hits[0].title == "Big Stone Gap (film)"
    assert index.table.texts.fetched <= len(hits)  # type: ignore[attr-defined]  # only the hits' texts were read
    assert not cache.exists() or not any(cache.rglob("*.npy"))  # no snapshot of it anywhere


@pytest.mark.parametrize("question", QUESTIONS)
def test_vector_hits_are_the_embedded_stores_exactly(served: HopGraph, embedded: HopGraph, question: str) -> None:
    """Below the ANN threshold pgvector scans every vector: the same rows, the same cosines."""
    ours = served.search(question, method="vector").hits
    theirs = embedded.search(question, method="vector").hits
    assert [(h.title, h.text) for h in ours] == [(h.title, h.text) for h in theirs]
    assert [h.score for h in ours] == pytest.approx([h.score for h in theirs], abs=1e-6)


def test_below_the_ann_threshold_every_row_has_its_own_cosine(served: HopGraph, embedded: HopGraph) -> None:
    """A chunk a link or a name places, far from the question, is weighed by its own cosine as in the
    embedded store's exact search, not by the floor kept for rows outside the nearest ones."""
    query = served.embedder.embed_query(QUESTIONS[0])

    def by_text(hg: HopGraph) -> dict[str, float]:
        index = hg.search_index
        scores = index.vector_search.scores(query)
        return {index.table.texts[row]: float(scores[row]) for row in range(len(index.table))}

    ours, theirs = by_text(served), by_text(embedded)
    assert ours.keys() == theirs.keys() and len(ours) == len(TINY_CORPUS)
    assert [ours[t] for t in theirs] == pytest.approx(list(theirs.values()), abs=1e-6)
    asked: list[int] = []
    many = {chunk: chunk for chunk in range(3 * MIN_CANDIDATES)}  # more rows than a ranking's depth
    for every_row in (True, False):
        DatabaseSearch(lambda _q, k: asked.append(k) or [], many, every_row=every_row).scores(query)
    assert asked == [4 * MIN_CANDIDATES, MIN_CANDIDATES]


@pytest.mark.parametrize("method", KEYWORD_METHODS)
def test_keyword_methods_give_the_embedded_stores_hits(served: HopGraph, embedded: HopGraph, method: str) -> None:
    """Below the ANN threshold the vectors are an exact scan and the keywords the embedded BM25 over
    bm25s's own terms (store/postgres/keywords.py): the very same top hits, in order."""
    for question in QUESTIONS:
        assert top(served, question, method) == top(embedded, question, method), question


def test_a_write_by_another_store_object_is_seen_at_the_next_question(served: HopGraph, pg_url: str) -> None:
    question = "the southernmost part of Manhattan"
    assert "Lower Manhattan" not in [h.title for h in served.search(question, method="hybrid").hits]
    before = served.search_index
    writer = open_graph(pg_url)
    writer.index_documents([EXTRA], replace_sources=False)
    assert not is_current(before, served.store)
    assert served.search(question, method="hybrid").hits[0].title == "Lower Manhattan"
    assert served.search_index is not before and is_current(served.search_index, served.store)
    gap = next(d for d in writer.store.active_documents().values() if d.title == "Gap Inc.")
    writer.remove([str(gap.id)])
    writer.close()
    assert "Gap Inc." not in [h.title for h in served.search("clothing retailer Gap", method="hybrid+names+links").hits]


def test_an_unchanged_store_keeps_its_loaded_index(served: HopGraph) -> None:
    first = served.search_index
    served.search("american film", method="ppr")
    assert served.search_index is first


def test_rows_written_after_loading_are_left_out_not_misplaced(served: HopGraph, pg_url: str) -> None:
    """Between the generation check and the SQL another process may commit: chunks the loaded rows
    do not hold are dropped from the ranking, never mapped to another row."""
    index = served.search_index
    writer = open_graph(pg_url)
    writer.index_documents([EXTRA], replace_sources=False)
    writer.close()
    query = served.embedder.embed_query("the southernmost part of Manhattan")
    scores = index.vector_search.sparse_scores(query)  # type: ignore[union-attr]
    assert set(scores.rows.tolist()) == set(range(len(index))) and scores.rest == FLOOR
    keyword = index.keyword.scores("southernmost")  # a word only the new chunk holds
    assert keyword.shape == (len(index),) and np.all(keyword == 0)


def test_an_empty_store_says_to_index_first(pg_url: str, cache: Path) -> None:
    hg = open_graph(pg_url)
    with pytest.raises(HopgraphError, match=r"holds no documents yet: run `hopgraph index"):
        hg.search("anything")
    hg.close()
