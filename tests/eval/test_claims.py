"""Evidence-claim sets: loading, the per-type and unweighted scores, the ceiling, halves by source,
an end-to-end run over the tiny corpus, and `hopgraph eval` on such a set."""

from __future__ import annotations

import pytest
from cli_kit import fails
from evalkit import CLAIMS, CORPUS, write
from testkit import TINY_CORPUS, BagOfWordsEmbedder
from typer.testing import CliRunner

import hopgraph.cli.app
import hopgraph.engine
from hopgraph.errors import InputError
from hopgraph.eval.claims import (
    ClaimQuestion,
    by_half,
    by_type,
    ceiling,
    format_claim_table,
    is_claim_set,
    load_claim_questions,
    run_claim_eval,
)
from hopgraph.eval.halves import half_of


@pytest.fixture
def bag_of_words(monkeypatch):
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())


def test_load_claim_questions_reads_ids_sources_types_and_claims(tmp_path):
    path = write(tmp_path / "q.json", CLAIMS)
    questions, digest = load_claim_questions(path)
    assert questions[2] == ClaimQuestion("c3", "Novel-10762", CLAIMS[2]["question"], "Fact Retrieval",
                                         tuple(CLAIMS[2]["evidence"]), "tools")
    assert questions[2].half_key == "Novel-10762" and len(digest) == 64
    assert is_claim_set(path)
    assert not is_claim_set(write(tmp_path / "h.json", [{"question": "q", "supporting_facts": []}]))


@pytest.mark.parametrize(("records", "problem"), [
    ([{"question": "q", "type": "t"}], "record 0 lacks evidence"),
    ([{"question": "q", "type": "t", "evidence": []}], "record 0's evidence must be a non-empty list"),
    ([{"question": "q", "type": "t", "evidence": ["ok", 3]}], "record 0's evidence must be a non-empty list"),
    ({"question": "q"}, "expected a non-empty JSON list"),
])
def test_load_claim_questions_names_what_is_wrong(tmp_path, records, problem):
    with pytest.raises(InputError, match=problem):
        load_claim_questions(write(tmp_path / "bad.json", records))


def test_a_question_without_id_is_numbered_and_its_own_half_key(tmp_path):
    questions, _ = load_claim_questions(write(tmp_path / "q.json", [{"question": "q", "type": "t", "evidence": ["e"]}]))
    assert (questions[0].id, questions[0].half_key) == ("0", "0")


def test_all_is_the_unweighted_mean_of_the_types():
    questions = [ClaimQuestion(str(i), "", "q", t, ("c",)) for i, t in enumerate(["A", "B", "B", "B"])]
    scores = by_type(questions, [1.0, 0.0, 0.5, 0.0])
    assert scores["by_type"] == {"A": {"n": 1, "ev_recall": 1.0}, "B": {"n": 3, "ev_recall": 0.1667}}
    assert scores["all"] == 0.5833  # (1.0 + 0.1667) / 2, not the mean of the four questions (0.375)


def test_the_ceiling_finds_every_claim_some_chunk_holds():
    questions, _ = load_claim_questions_from(CLAIMS)
    top = ceiling(questions, [doc.text for doc in TINY_CORPUS])
    # c3's second claim is in no chunk; every other claim is in one chunk.
    assert top["by_type"] == {"Complex Reasoning": {"n": 1, "ev_recall": 1.0},
                              "Fact Retrieval": {"n": 2, "ev_recall": 0.75}}


def load_claim_questions_from(records):
    return [ClaimQuestion(r["id"], r["source"], r["question"], r["type"], tuple(r["evidence"])) for r in records], ""


def test_run_claim_eval_scores_methods_below_the_ceiling_and_halves_by_source(tmp_path, bag_of_words):
    data, corpus = write(tmp_path / "q.json", CLAIMS), write(tmp_path / "corpus.json", CORPUS)
    store = str(tmp_path / "claims.db")
    whole = run_claim_eval(data, corpus, ["bm25", "hybrid+names+links", "auto"], top=2, store=store)
    assert (whole["n_questions"], whole["n_documents"], whole["judge"]) == (3, 7, "lexical")
    for scores in whole["methods"].values():
        assert scores["all"] <= whole["ceiling"]["all"]
        for t, s in scores["by_type"].items():
            assert s["ev_recall"] <= whole["ceiling"]["by_type"][t]["ev_recall"]
    # Gap Inc.'s paragraph is bm25's first hit for its own question.
    assert whole["methods"]["bm25"]["questions"]["c2"] == 1.0
    a = run_claim_eval(data, corpus, ["bm25"], top=2, store=store, half="a")
    b = run_claim_eval(data, corpus, ["bm25"], top=2, store=store, half="b")
    assert half_of("Novel-10762") == "a" and half_of("Novel-10146") == "b"
    assert list(a["methods"]["bm25"]["questions"]) == ["c3"]
    assert list(b["methods"]["bm25"]["questions"]) == ["c1", "c2"]
    table = format_claim_table(b)
    assert "2 questions (Complex Reasoning=1, Fact Retrieval=1), half B, 7 documents" in table
    assert table.splitlines()[-1].startswith("ceiling (every chunk, lexical)")


def test_run_claim_eval_needs_a_corpus_and_an_llm_for_the_llm_judge(tmp_path, bag_of_words):
    data, corpus = write(tmp_path / "q.json", CLAIMS), write(tmp_path / "corpus.json", CORPUS)
    with pytest.raises(InputError, match="needs its documents: give --corpus"):
        run_claim_eval(data, None, ["bm25"], store=str(tmp_path / "x.db"))
    with pytest.raises(InputError, match="--judge llm needs an LLM"):
        run_claim_eval(data, corpus, ["bm25"], store=str(tmp_path / "x.db"), judge="llm")
    with pytest.raises(InputError, match="unknown method"):
        run_claim_eval(data, corpus, ["hybrid+pagerank"], store=str(tmp_path / "y.db"))


def test_hopgraph_eval_reads_a_claim_set_by_half(tmp_path, bag_of_words, monkeypatch, capsys):
    data, corpus = write(tmp_path / "q.json", CLAIMS), write(tmp_path / "corpus.json", CORPUS)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(hopgraph.cli.app.app, ["eval", "--data", str(data), "--corpus", str(corpus),
                                                       "--methods", "bm25,hybrid", "--half", "b", "--top", "2",
                                                       "--store", str(tmp_path / "c.db"), "--json", str(out), "-q"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "half B" in lines[0] and lines[1].split()[:3] == ["method", "Complex", "Reasoning"]
    assert [line.split()[0] for line in lines[2:5]] == ["bm25", "hybrid", "ceiling"]
    assert out.exists()
    refused = fails(monkeypatch, capsys, "eval", "--data", str(data), "--corpus", str(corpus), "--half", "c",
                    "--store", str(tmp_path / "c.db"))
    assert "unknown half 'c'; use a or b" in refused


def test_by_half_regroups_a_whole_run_into_the_halves_it_would_score_alone(tmp_path, bag_of_words):
    data, corpus = write(tmp_path / "q.json", CLAIMS), write(tmp_path / "corpus.json", CORPUS)
    store = str(tmp_path / "claims.db")
    whole = run_claim_eval(data, corpus, ["hybrid"], top=1, store=store)
    questions, _ = load_claim_questions(data)
    for half in "ab":
        alone = run_claim_eval(data, corpus, ["hybrid"], top=1, store=store, half=half)
        regrouped = by_half(questions, whole["methods"]["hybrid"])[half]
        assert regrouped == {k: alone["methods"]["hybrid"][k] for k in ("by_type", "all")}
        assert by_half(questions, whole["ceiling"])[half]["all"] == alone["ceiling"]["all"]
