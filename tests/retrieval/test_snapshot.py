"""Search snapshots: written once, read back by later processes, never trusted for another state."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.linkgraph.names import MentionFinder
from hopgraph.records.documents import Document
from hopgraph.retrieval.lazy_table import LazyTexts, StringTable
from hopgraph.retrieval.name_lookup import load_names, save_names
from hopgraph.retrieval.partial_names import PartialNames
from hopgraph.retrieval.snapshot import ANN_FILE, snapshot_key, snapshot_root
from hopgraph.retrieval.vector_search import FLOOR, AnnSearch, ExactSearch, build_ann

QUESTIONS = ["Where is the director of Big Stone Gap based?", "Who produced Big Stone Gap?",
             "american film", "stone tools in prehistory", "Which retailer is based in San Francisco?"]
METHODS = ["vector", "bm25", "hybrid", "hybrid+names+links", "ppr"]
EXTRA = Document("Lower Manhattan", "Lower Manhattan is the southernmost part of Manhattan.", "tiny")


def open_graph(path: Path, **settings: object) -> HopGraph:
    return HopGraph(str(path), Settings(**settings), embedder=BagOfWordsEmbedder())  # type: ignore[arg-type]


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.db"
    hg = open_graph(path)
    hg.index_documents(TINY_CORPUS)
    hg.close()
    return path


def snapshots(store_path: Path) -> list[Path]:
    root = Path(str(store_path) + ".search")
    return sorted(p for p in root.iterdir() if not p.name.startswith(".")) if root.is_dir() else []


def hits_of(hg: HopGraph, method: str, question: str) -> list[tuple]:
    return [(h.chunk_id, h.doc_id, h.title, h.text, h.score, h.found_by, h.via, h.source, h.ranks)
            for h in hg.search(question, method=method).hits]


def test_the_first_open_writes_a_snapshot_and_the_second_reads_it(store_path):
    first = open_graph(store_path)
    assert first.search_index.origin == "built"
    assert "snapshot_write" in first.search_index.load_seconds
    [directory] = snapshots(store_path)
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["embedder"] == "test-bag-of-words" and manifest["rows"] == len(first.search_index)
    first.close()
    second = open_graph(store_path)
    index = second.search_index
    assert index.origin == "snapshot"
    assert set(index.load_seconds) == {"snapshot_read"}  # nothing was built
    assert (directory / "manifest.json").stat().st_mtime_ns == manifest_mtime(directory)
    second.close()


def manifest_mtime(directory: Path) -> int:
    return (directory / "manifest.json").stat().st_mtime_ns


def test_results_are_identical_with_and_without_a_snapshot(store_path):
    built, read = open_graph(store_path), open_graph(store_path)
    assert built.search_index.origin == "built" or read.search_index.origin == "snapshot"
    read._search_index = None
    assert read.search_index.origin == "snapshot"
    for method in METHODS:
        for question in QUESTIONS:
            assert hits_of(built, method, question) == hits_of(read, method, question), (method, question)
    built.close()
    read.close()


def test_the_snapshot_reads_only_the_texts_a_query_needs(store_path):
    open_graph(store_path).search_index  # noqa: B018  (writes the snapshot)
    hg = open_graph(store_path)
    texts = hg.search_index.table.texts
    assert isinstance(texts, LazyTexts) and texts.fetched == 0
    hits = hg.search("Who produced Big Stone Gap?", method="hybrid").hits
    assert 0 < texts.fetched <= len(hits)
    stored = hg.store.chunk_table().texts
    assert list(texts) == stored and texts[-1] == stored[-1] and texts[1:3] == stored[1:3]
    with pytest.raises(IndexError):
        texts[len(stored)]
    hg.close()


def test_an_index_run_makes_a_new_generation_and_the_old_snapshot_is_not_read(store_path):
    hg = open_graph(store_path)
    hg.search_index  # noqa: B018
    generation = hg.store.meta()["generation"]
    [old] = snapshots(store_path)
    hg.index_documents([*TINY_CORPUS, EXTRA])
    assert hg.store.meta()["generation"] != generation
    hg.close()
    again = open_graph(store_path)
    assert again.search_index.origin == "built"
    assert [p.name for p in snapshots(store_path)] == [snapshot_key(again.store.meta()["generation"],
                                                                    "test-bag-of-words")] != [old.name]
    assert any(h.title == "Lower Manhattan" for h in again.search("southernmost part of Manhattan").hits)
    generation = again.store.meta()["generation"]
    [extra] = [d.id for d in again.store.active_documents().values() if d.title == "Lower Manhattan"]
    again.remove([str(extra)])
    assert again.store.meta()["generation"] != generation  # remove is an index run too
    again.close()


def test_an_unchanged_index_run_keeps_the_generation(store_path):
    hg = open_graph(store_path)
    generation = hg.store.meta()["generation"]
    hg.index_documents(TINY_CORPUS)  # nothing changed: nothing is written
    assert hg.store.meta()["generation"] == generation
    hg.close()


@pytest.mark.parametrize("damage", ["truncated vectors", "garbage array", "bad manifest", "no manifest",
                                    "missing bm25", "wrong row count"])
def test_a_damaged_snapshot_is_rebuilt_not_trusted(store_path, damage):
    reference = open_graph(store_path)
    expected = {q: hits_of(reference, "hybrid+names+links", q) for q in QUESTIONS}
    reference.close()
    [directory] = snapshots(store_path)
    if damage == "truncated vectors":
        path = directory / "vectors.npy"
        path.write_bytes(path.read_bytes()[:-16])
    elif damage == "garbage array":
        path = directory / "names.rows.npy"
        path.write_bytes(b"\x00" * path.stat().st_size)  # same size: only reading it shows the damage
    elif damage == "bad manifest":
        (directory / "manifest.json").write_text("{not json")
    elif damage == "no manifest":  # as a crash before the manifest, were the files in place already
        (directory / "manifest.json").unlink()
    elif damage == "missing bm25":
        (directory / "bm25" / "hopgraph.json").unlink()
    else:
        manifest = json.loads((directory / "manifest.json").read_text())
        manifest["rows"] += 1
        (directory / "manifest.json").write_text(json.dumps(manifest))
    hg = open_graph(store_path)
    assert hg.search_index.origin == "built"
    assert {q: hits_of(hg, "hybrid+names+links", q) for q in QUESTIONS} == expected
    hg.close()
    healed = open_graph(store_path)  # the rebuild wrote a whole snapshot again, and nothing else
    assert healed.search_index.origin == "snapshot"
    assert [p.name for p in Path(str(store_path) + ".search").iterdir()] == [directory.name]
    healed.close()


def test_a_store_without_a_generation_is_built_in_memory(store_path):
    with sqlite3.connect(store_path) as db:
        db.execute("DELETE FROM meta WHERE key = 'generation'")  # as a store written before generations
    for _ in range(2):
        hg = open_graph(store_path)
        assert hg.search_index.origin == "built" and "snapshot_write" not in hg.search_index.load_seconds
        hg.close()


def test_an_in_memory_store_writes_no_snapshot(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    hg = open_graph(Path(":memory:"))
    hg.index_documents(TINY_CORPUS)
    assert hg.search_index.origin == "built" and "snapshot_write" not in hg.search_index.load_seconds
    assert list(tmp_path.iterdir()) == []
    hg.close()


def test_where_snapshots_live(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert snapshot_root(":memory:") is None
    assert snapshot_root("/data/notes.db") == Path("/data/notes.db.search")
    url = snapshot_root("postgresql://db.example/hopgraph")
    assert url is not None and url.parent.name == "search" and len(url.name) == 64
    assert url != snapshot_root("postgresql://db.example/other")


def clustered(n_clusters: int = 20, per: int = 100, dim: int = 64, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_clusters, dim)).astype(np.float32)
    points = np.repeat(centres, per, axis=0) + 0.3 * rng.standard_normal((n_clusters * per, dim), dtype=np.float32)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def test_ann_search_finds_the_exact_top_k_on_a_clustered_set():
    vectors = clustered()
    exact, ann = ExactSearch(vectors), AnnSearch(build_ann(vectors), vectors)
    rng = np.random.default_rng(5)
    for row in rng.choice(len(vectors), 20, replace=False):
        query = vectors[row] + 0.1 * rng.standard_normal(vectors.shape[1], dtype=np.float32)
        query /= np.linalg.norm(query)
        want, got = exact.scores(query), ann.scores(query, 100)
        top = np.argsort(-want, kind="stable")[:10]
        assert np.array_equal(np.argsort(-got, kind="stable")[:10], top)
        found = got > FLOOR
        assert 100 <= found.sum() < len(vectors)  # the rest sit at the floor
        assert np.allclose(got[found], want[found], atol=1e-6)  # found rows keep their exact cosine


def test_above_the_threshold_search_goes_through_the_ann_index_and_finds_the_same(store_path):
    exact = open_graph(store_path)
    assert isinstance(exact.search_index.vector_search, ExactSearch)
    ann = open_graph(store_path, ann_threshold=1)
    assert isinstance(ann.search_index.vector_search, AnnSearch)
    assert "ann_build" in ann.search_index.load_seconds
    [directory] = snapshots(store_path)
    assert (directory / ANN_FILE).is_file()
    for method in METHODS:  # a tiny store: every cell is probed, so ANN is exact
        for question in QUESTIONS:
            assert hits_of(exact, method, question) == hits_of(ann, method, question), (method, question)
    exact.close()
    ann.close()
    again = open_graph(store_path, ann_threshold=1)
    assert set(again.search_index.load_seconds) == {"snapshot_read", "ann_load"}
    assert isinstance(again.search_index.vector_search, AnnSearch)
    again.close()


def test_a_string_table_reads_like_the_dict_it_was_made_from():
    mapping = {7: "Zürich", 2: "", 40: "Big Stone Gap (film)", -3: "négatif"}
    table = StringTable.of(mapping)
    assert dict(table) == mapping and len(table) == 4 and list(table) == sorted(mapping)
    assert table.get(5, "none") == "none" and table.get(40) == "Big Stone Gap (film)"
    with pytest.raises(KeyError):
        table[41]
    assert dict(StringTable.of({})) == {}


SURFACES = ["new york", "new york city", "york", "big stone gap (film)", "big stone gap", "gap inc.", "strasse",
            "o'neil", "x", "co-op", "état", "the", "2014", "city of york", "stone", "adriana trigiani"]


def test_span_lookup_finds_what_the_automaton_finds(tmp_path):
    rows_named = {s: [i, i + 100] for i, s in enumerate(SURFACES)}  # case-folded, as an index holds them
    display = {s: s.title() for s in SURFACES}
    save_names(tmp_path, MentionFinder(rows_named, casefold=True).surfaces, rows_named, display)
    finder, rows, shown, partial = load_names(tmp_path)
    automaton = MentionFinder(rows_named, casefold=True)
    rng = np.random.default_rng(0)
    pieces = [*SURFACES, "New York City", "STRASSE", "Straße", " ", ", ", "(", ")", "-", "big", "stone", "gapped",
              "yorkshire", "’s", "Who", "?", "city"]
    texts = ["Is New York City in York?", "Big Stone Gap (film) and Gap Inc.", "a straße, STRASSE and O'Neil",
             "co-op", "", "newyork", "Yorkshire York"]
    texts += ["".join(rng.choice(pieces, size=int(rng.integers(1, 12)))) for _ in range(400)]
    for text in texts:
        assert finder.find(text) == automaton.find(text), text
        assert [finder.surfaces[i] for i in finder.find(text)] == [automaton.surfaces[i] for i in automaton.find(text)]
    assert dict(rows) == rows_named and dict(shown) == display and rows.get("nowhere") is None
    reference = PartialNames(rows_named)
    for question in ["Who is Adriana Trigiani?", "Stone Gap Film", "City York", "New City", "the Big Gap"]:
        assert partial.find(question, []) == reference.find(question, []), question
