"""The HopGraph facade: input checked before any work, indexing files, re-indexing, reloading."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from testkit import TINY_CORPUS

import hopgraph.engine
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import HopgraphError, InputError
from hopgraph.query.question import MAX_QUESTION_CHARS, AskLimits

QUESTION = "Where is the director of Big Stone Gap based?"


def write_corpus(folder: Path) -> tuple[Path, Path]:
    text_file = folder / "lighthouse.txt"
    text_file.write_text("# Keeper's Log\n\nThe lighthouse keeper logged a storm over Skerryvore.\n", encoding="utf-8")
    json_file = folder / "notes.json"
    json_file.write_text(json.dumps([
        {"title": "Skerryvore", "text": "Skerryvore is a lighthouse on a reef west of Tiree."},
        {"title": "Tiree", "text": "Tiree is an island of the Inner Hebrides."},
    ]), encoding="utf-8")
    return text_file, json_file


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if the engine loads an embedder or a search index."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the engine did work before checking its input")

    monkeypatch.setattr(hopgraph.engine, "make_embedder", refuse)
    monkeypatch.setattr(hopgraph.engine, "open_search_index", refuse)


@pytest.mark.parametrize(("question", "method", "problem"), [
    ("Who directed it?", "foo", "unknown method"),
    ("Who directed it?", "hybrid+links+links", "unknown method"),
    ("   ", "hybrid", "empty"),
    ("q" * (MAX_QUESTION_CHARS + 1), "hybrid", "limit"),
])
def test_ask_rejects_bad_input_before_loading_anything(tmp_path, no_work, question, method, problem):
    with HopGraph(str(tmp_path / "empty.db"), Settings()) as hg, pytest.raises(InputError, match=problem):
        hg.search(question, method=method)


def test_ask_rejects_an_unknown_method_on_an_indexed_store_before_embedding_the_question(tiny_graph, monkeypatch):
    def refuse(text):
        raise AssertionError("the question was embedded")

    monkeypatch.setattr(tiny_graph.embedder, "embed_query", refuse)
    with pytest.raises(InputError, match="unknown method"):
        tiny_graph.search(QUESTION, method="hybrid+bar")


def test_ask_on_an_empty_store_is_an_error_that_says_to_index_first(tmp_path, embedder):
    with (HopGraph(str(tmp_path / "empty.db"), Settings(), embedder=embedder) as hg,
          pytest.raises(HopgraphError, match="no documents") as caught):
        hg.search(QUESTION, method="hybrid")
    assert "empty.db" in str(caught.value) and "hopgraph index" in str(caught.value)


@pytest.mark.parametrize("budget", [{"top": 0}, {"top": -1}, {"seeds": -1}])
def test_ask_rejects_an_impossible_budget_with_an_input_error(tiny_graph, budget):
    with pytest.raises(InputError):
        tiny_graph.search(QUESTION, method="hybrid", **budget)


def test_index_reads_text_and_json_files(tmp_path, embedder):
    text_file, json_file = write_corpus(tmp_path)
    with HopGraph(str(tmp_path / "files.db"), Settings(), embedder=embedder) as hg:
        report = hg.index([text_file, json_file])
        assert (report.documents, report.added, report.changed) == (3, 3, True)
        assert set(hg.store.active_documents()) == {(str(text_file), "Keeper's Log"),
                                                    (str(json_file), "Skerryvore"), (str(json_file), "Tiree")}
        hits = hg.search("Which island is in the Inner Hebrides?", method="bm25", top=1).hits
        assert hits[0].title == "Tiree"


def test_index_a_folder_reads_the_files_inside(tmp_path, embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    write_corpus(folder)
    with HopGraph(str(tmp_path / "folder.db"), Settings(), embedder=embedder) as hg:
        assert hg.index([folder]).added == 3


def test_reindexing_unchanged_files_changes_nothing_and_embeds_nothing(tmp_path, embedder):
    files = write_corpus(tmp_path)
    with HopGraph(str(tmp_path / "again.db"), Settings(), embedder=embedder) as hg:
        hg.index(files)
        documents_before = hg.store.active_documents()
        embedded_before = embedder.texts_embedded
        report = hg.index(files)
        assert report.changed is False
        assert (report.unchanged, report.added, report.updated, report.embedded) == (3, 0, 0, 0)
        assert embedder.texts_embedded == embedded_before
        assert hg.store.active_documents() == documents_before


def test_a_document_added_after_a_question_is_findable(tmp_path, embedder):
    text_file, json_file = write_corpus(tmp_path)
    with HopGraph(str(tmp_path / "grow.db"), Settings(), embedder=embedder) as hg:
        hg.index([text_file])
        assert [h.title for h in hg.search("Tiree island Hebrides", method="bm25", top=3).hits] == ["Keeper's Log"]
        report = hg.index([json_file])
        assert report.changed
        assert hg.search("Tiree island Hebrides", method="bm25", top=1).hits[0].title == "Tiree"


def test_a_changed_document_is_searched_in_its_new_version(tmp_path, embedder):
    text_file, _ = write_corpus(tmp_path)
    with HopGraph(str(tmp_path / "edit.db"), Settings(), embedder=embedder) as hg:
        hg.index([text_file])
        hg.search("storm", method="bm25")  # loads the search index
        text_file.write_text("# Keeper's Log\n\nCalm seas and a visiting puffin colony.\n", encoding="utf-8")
        report = hg.index([text_file])
        assert report.updated == 1
        (hit,) = hg.search("puffin colony", method="bm25", top=1).hits
        assert "puffin" in hit.text and "storm" not in hit.text


def test_a_document_removed_from_its_file_is_withdrawn_from_search(tmp_path, embedder):
    _, json_file = write_corpus(tmp_path)
    with HopGraph(str(tmp_path / "shrink.db"), Settings(), embedder=embedder) as hg:
        hg.index([json_file])
        assert "Tiree" in [h.title for h in hg.search("Inner Hebrides island", method="bm25", top=5).hits]
        json_file.write_text(json.dumps([{"title": "Skerryvore", "text": "Skerryvore is a lighthouse on a reef "
                                                                         "west of Tiree."}]), encoding="utf-8")
        assert hg.index([json_file]).withdrawn == 1
        assert [h.title for h in hg.search("Inner Hebrides island", method="bm25", top=5).hits] == ["Skerryvore"]


def test_ask_takes_top_and_seeds_from_settings_unless_given(tmp_path, embedder):
    with HopGraph(str(tmp_path / "budget.db"), Settings(top=2, seeds=0), embedder=embedder) as hg:
        hg.index_documents(TINY_CORPUS)
        assert len(hg.search(QUESTION, method="hybrid").hits) == 2
        assert len(hg.search(QUESTION, method="hybrid", top=4).hits) == 4
        # seeds=0 from the settings: no links are followed.
        assert all(h.found_by != "link" for h in hg.search(QUESTION, method="hybrid+links", top=4).hits)
        assert any(h.found_by == "link" for h in hg.search(QUESTION, method="hybrid+links", top=4, seeds=2).hits)


def test_ask_takes_limits_for_one_question_over_the_settings(tmp_path, embedder):
    with HopGraph(str(tmp_path / "limits.db"), Settings(seeds=0), embedder=embedder) as hg:
        hg.index_documents(TINY_CORPUS)

        def found_by(limits: AskLimits | None) -> set[str]:
            return {h.found_by for h in hg.ask(QUESTION, "search", "hybrid+links", 4, False, limits).hits}

        assert "link" not in found_by(None)  # seeds=0 from the settings
        assert "link" in found_by(AskLimits(seeds=2))
        assert "link" not in found_by(AskLimits(steps=2))  # a limit of another mode leaves search alone
        assert hg.settings.seeds == 0


@pytest.mark.parametrize(("limits", "named"), [({"seeds": -1}, "seeds"), ({"max_hops": 0}, "max_hops"),
                                               ({"answer_tokens": 0}, "answer_tokens")])
def test_an_impossible_limit_is_an_input_error_naming_it(limits, named):
    with pytest.raises(InputError, match=f"limit {named} must be at least"):
        AskLimits(**limits)


def test_ask_follows_the_two_hops_of_the_tiny_corpus(tiny_graph):
    hits = tiny_graph.search(QUESTION, method="hybrid+names+links", top=3, seeds=1).hits
    assert (hits[0].title, hits[0].found_by) == ("Big Stone Gap (film)", "name")
    link = next(h for h in hits if h.title == "Adriana Trigiani")
    assert link.found_by == "link"
    assert link.describe_path() == 'Big Stone Gap (film) → Adriana Trigiani via "Adriana Trigiani"'
    assert "Greenwich Village" in link.text


def test_indexing_a_missing_file_raises_and_writes_nothing(tmp_path, embedder):
    text_file, _ = write_corpus(tmp_path)
    with HopGraph(str(tmp_path / "missing.db"), Settings(), embedder=embedder) as hg:
        with pytest.raises(InputError, match="no such file"):
            hg.index([text_file, tmp_path / "nope.txt"])
        assert hg.store.active_documents() == {}
        assert embedder.calls == 0


def test_ask_with_a_model_server_that_never_answers_ends_within_30_seconds(tmp_path, embedder):
    """Issue 25 (2): with the default settings a silent endpoint cost `ask` 249 s."""
    from fake_llm import silent_url

    with silent_url() as url, HopGraph(str(tmp_path / "s.db"), Settings(llm_url=url, llm_model="m"),
                                       embedder=embedder) as hg:
        hg.index_documents(TINY_CORPUS)
        started = time.monotonic()
        with pytest.raises(HopgraphError, match="not reachable: timed out"):
            hg.ask("Where is the director of Big Stone Gap based?")
        assert time.monotonic() - started < 30
