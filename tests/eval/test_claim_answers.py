"""Answers on an evidence-claim set with reference answers: written by a model, graded by it against
the reference (a real HTTP server on 127.0.0.1 records; the replay runs with no server), combined
with the embedding similarity by GraphRAG-Bench's weights, per type and per half (whole books)."""

from __future__ import annotations

import json

import pytest
from evalkit import CLAIMS, CORPUS, write
from scripted_chat import scripted_chat
from testkit import REPO, BagOfWordsEmbedder
from typer.testing import CliRunner

import hopgraph.cli.app
import hopgraph.engine
from hopgraph.config import Settings
from hopgraph.errors import InputError
from hopgraph.eval.claim_answers import (
    FACT_WEIGHT,
    GRADE_STEP,
    SIMILARITY_WEIGHT,
    format_claim_answer_table,
    grade_answers,
    run_claim_answer_eval,
)
from hopgraph.llm import LLMClient, ReplayLLMCache
from hopgraph.prompts import answer_grade

MODEL = "scripted-model"


@pytest.fixture
def bag_of_words(monkeypatch):
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())


def _writer_and_grader(body):
    """A scripted model. As the grader: "correct" when the answer holds the whole reference, "partly"
    when it holds one of its words, else "wrong". As the writer: the first chunk's first six words,
    citing it."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system == answer_grade.SYSTEM:
        reference = user.split("Reference answer: ", 1)[1].split("\n\n", 1)[0].lower()
        answer = user.split("Answer to grade: ", 1)[1].lower()
        verdict = ("correct" if reference in answer else
                   "partly" if any(word in answer.split() for word in reference.split()) else "wrong")
        return 200, {"verdict": verdict}
    chunk = int(user.split("[chunk ", 1)[1].split("]", 1)[0])
    words = user.split("[chunk ", 1)[1].split("]", 1)[1].split()[:6]
    return 200, {"answer": " ".join(words), "citations": [chunk]}


def test_answers_are_graded_against_the_reference_and_replay_offline(tmp_path, bag_of_words):
    data, corpus = write(tmp_path / "q.json", CLAIMS), write(tmp_path / "corpus.json", CORPUS)
    replies = tmp_path / "replies.json"
    with scripted_chat(_writer_and_grader) as chat:
        live = run_claim_answer_eval(data, corpus, ["hybrid", "auto"], top=2, store=str(tmp_path / "a.db"),
                                     settings=Settings(llm_url=chat.url, llm_model=MODEL), record=replies)
        graded = chat.user_messages(answer_grade.SYSTEM)
    hybrid = live["methods"]["hybrid"]
    # One grade per written answer; an answer both methods wrote alike is graded once (the cache).
    assert live["grader_llm"]["calls"] == 6 and len(graded) == 6 - live["grader_llm"]["cached"]
    for row in hybrid["questions"]:
        assert row["grade"] in (0.0, 0.5, 1.0) and 0.0 < row["similarity"] <= 1.0
        assert row["accuracy"] == round(FACT_WEIGHT * row["grade"] + SIMILARITY_WEIGHT * row["similarity"], 4)
    # Gap Inc.'s paragraph is hybrid's first hit for its own question, and its words hold the reference.
    assert next(r for r in hybrid["questions"] if r["id"] == "c2")["grade"] == 1.0
    types = hybrid["by_type"]
    assert hybrid["all"]["accuracy"] == round((types["Complex Reasoning"]["accuracy"]
                                               + types["Fact Retrieval"]["accuracy"]) / 2, 4)
    # Halves are whole books: Novel-10762 (c3) is A, Novel-10146 (c1, c2) is B.
    assert (hybrid["halves"]["a"]["all"]["n"], hybrid["halves"]["b"]["all"]["n"]) == (1, 2)
    table = format_claim_answer_table(live)
    assert "graded against the reference" in table and table.splitlines()[2].split()[0] == "hybrid"
    # The replay: another store (nothing cached), no server configured.
    replayed = run_claim_answer_eval(data, corpus, ["hybrid", "auto"], top=2, store=str(tmp_path / "b.db"),
                                     settings=Settings(), replay=replies)
    for method in ("hybrid", "auto"):
        same = ("id", "answer", "grade", "similarity", "accuracy", "tokens_in")  # not the seconds
        assert [[q[key] for key in same] for q in replayed["methods"][method]["questions"]] == \
               [[q[key] for key in same] for q in live["methods"][method]["questions"]]


def test_an_empty_answer_is_wrong_without_a_call():
    items = [("Where?", "Greenwich Village", "In Greenwich Village."), ("What?", "tools", "  ")]
    with (scripted_chat(_writer_and_grader) as chat,
          LLMClient(chat.url, MODEL, cache=ReplayLLMCache(strict=False)) as client):
        assert grade_answers(client, items) == [1.0, 0.0]
        assert len(chat.bodies) == 1 and client.usage[GRADE_STEP].calls == 1


def test_bad_requests_are_refused_naming_the_problem(tmp_path, bag_of_words):
    data, corpus = write(tmp_path / "q.json", CLAIMS), write(tmp_path / "corpus.json", CORPUS)
    store = str(tmp_path / "x.db")
    with pytest.raises(InputError, match="needs an LLM to write and grade"):
        run_claim_answer_eval(data, corpus, ["hybrid"], store=store)
    with pytest.raises(InputError, match="unknown answer method short for a set with reference answers"):
        run_claim_answer_eval(data, corpus, ["short"], store=store)
    unanswered = write(tmp_path / "u.json", [{**CLAIMS[0], "answer": ""}, CLAIMS[1]])
    with pytest.raises(InputError, match="needs a reference answer on every question; 1 lack one"):
        run_claim_answer_eval(unanswered, corpus, ["hybrid"], store=store)


def test_hopgraph_eval_answers_a_claim_set_from_recorded_replies(tmp_path, bag_of_words):
    data, corpus = write(tmp_path / "q.json", CLAIMS), write(tmp_path / "corpus.json", CORPUS)
    replies = tmp_path / "replies.json"
    with scripted_chat(_writer_and_grader) as chat:
        run_claim_answer_eval(data, corpus, ["auto"], top=2, half="b", store=str(tmp_path / "a.db"),
                              settings=Settings(llm_url=chat.url, llm_model=MODEL), record=replies)
    result = CliRunner().invoke(hopgraph.cli.app.app, [
        "eval", "--data", str(data), "--corpus", str(corpus), "--answers", "--methods", "auto", "--half", "b",
        "--top", "2", "--replay", str(replies), "--store", str(tmp_path / "c.db"), "-q"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("2 questions, half B") and lines[2].split()[0] == "auto"


# --- the real local model's grades, replayed --------------------------------------------------------

RESULTS = REPO / "bench" / "results" / "novel_answers.json"
RECORDED = REPO / "bench" / "results" / "novel_answers_replies.json"


def test_the_local_model_s_recorded_grades_replay_offline():
    """bench/novel_answers.py --record kept every reply of the real model: grading the recorded
    answers again, with no server, asks the same prompts and parses the same verdicts."""
    result = json.loads(RESULTS.read_text(encoding="utf-8"))
    model = result["reader"].removeprefix("llm:")
    with LLMClient("http://127.0.0.1:9/v1", model, cache=ReplayLLMCache(RECORDED, strict=True)) as client:
        for scores in result["methods"].values():
            rows = scores["questions"]
            assert grade_answers(client, [(r["question"], r["reference"], r["answer"]) for r in rows]) == \
                   [r["grade"] for r in rows]
        assert client.usage[GRADE_STEP].requests == 0 and client.usage[GRADE_STEP].calls > 0
