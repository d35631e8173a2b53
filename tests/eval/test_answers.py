"""Answer evaluation: HotpotQA's EM/F1, offline extractive scoring, and recording then replaying a
model's replies (a real HTTP server on 127.0.0.1 records; the replay runs with no server at all)."""

from __future__ import annotations

import json
import statistics

import pytest
from evalkit import RECORDS, write
from scripted_chat import scripted_chat
from testkit import BagOfWordsEmbedder

import hopgraph.engine
from hopgraph.config import Settings
from hopgraph.errors import InputError
from hopgraph.eval.answers import exact_match, format_answer_table, normalize_answer, run_answer_eval, token_f1
from hopgraph.llm import LLMError
from hopgraph.text.nlp import parser_available

MODEL = "scripted-model"


@pytest.fixture
def bag_of_words(monkeypatch):
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())


# --- the scores --------------------------------------------------------------------------------------


def test_normalisation_is_hotpotqa_s_lower_case_no_punctuation_no_articles():
    assert normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert normalize_answer("An apple, a day") == "apple day"


@pytest.mark.parametrize(("prediction", "gold", "em", "f1"), [
    ("the Greenwich Village.", "Greenwich Village", 1.0, 1.0),
    ("Greenwich Village, New York City", "Greenwich Village", 0.0, 2 * (2 / 5) * 1.0 / (2 / 5 + 1.0)),
    ("Paris", "Greenwich Village", 0.0, 0.0),
    ("yes", "no", 0.0, 0.0),
    ("yes it is", "yes", 0.0, 0.0),  # a yes/no gold answer must be matched exactly
    ("Yes", "yes", 1.0, 1.0),
])
def test_exact_match_and_token_f1(prediction, gold, em, f1):
    assert exact_match(prediction, gold) == em
    assert token_f1(prediction, gold) == pytest.approx(f1)


# --- offline: the extractive answers ------------------------------------------------------------------


def test_without_an_llm_hybrid_and_auto_are_scored_extractively_and_the_rest_say_they_need_a_model(
        tmp_path, bag_of_words):
    result = run_answer_eval(write(tmp_path / "q.json", RECORDS), top=2, store=str(tmp_path / "a.db"),
                             settings=Settings())
    answers = result["answers"]
    assert result["reader"] == "extractive (no LLM configured)"
    assert "needs an LLM" in answers["none"]["skipped"] and "needs an LLM" in answers["iterative"]["skipped"]
    for method in ("hybrid", "auto"):
        scores = answers[method]["all"]
        assert scores["n"] == 3 and scores["llm_calls"] == 0
        # the extract quotes sentences of the hits: the answer can be in it only if it is in the hits
        assert scores["answer_in"] <= scores["context_has"]
        assert [q["id"] for q in answers[method]["questions"]] == ["q1", "q2", "q3"]
    # q3's answer "Gap Inc." is the subject of the paragraph the question describes
    q3 = answers["hybrid"]["questions"][2]
    assert q3["context_has"] == 1.0 and "[chunk" not in q3["answer"]
    table = format_answer_table(result)
    assert "none: skipped" in table and table.splitlines()[1].startswith("method")


@pytest.mark.skipif(not parser_available(), reason="the short answer reads entities with spaCy's model")
def test_the_short_answer_is_scored_with_the_search_and_its_own_medians(tmp_path, bag_of_words):
    result = run_answer_eval(write(tmp_path / "q.json", RECORDS), methods=["short"], top=3,
                             store=str(tmp_path / "s.db"), settings=Settings())
    short = result["answers"]["short"]
    answered = {q["id"]: q["answer"] for q in short["questions"]}
    assert answered["q1"] == "Greenwich Village"  # the director's own passage, the second hop
    assert short["all"]["f1"] == pytest.approx(statistics.fmean(q["f1"] for q in short["questions"]))
    assert all(short["all"][f"p50_{key}"] > 0 for key in ("search_ms", "short_ms", "short_cpu_ms"))
    assert "p50 short answer" in format_answer_table(result)


def test_an_unknown_answer_method_is_refused_before_any_work(tmp_path):
    with pytest.raises(InputError, match="unknown answer method ppr"):
        run_answer_eval(write(tmp_path / "q.json", RECORDS), methods=["hybrid", "ppr"], store=str(tmp_path / "a.db"))
    assert not (tmp_path / "a.db").exists()


# --- with a model: record against a real server, replay without one -----------------------------------


def _answers(body):
    """A scripted model: answers every question with its first given chunk's first word ("unknown"
    with no chunks), citing that chunk."""
    user = body["messages"][-1]["content"]
    if "[chunk " not in user:
        return 200, {"answer": "unknown"}
    chunk = int(user.split("[chunk ", 1)[1].split("]", 1)[0])
    first_word = user.split("[chunk ", 1)[1].split("]", 1)[1].split()[0]
    return 200, {"answer": first_word, "citations": [chunk]}


def test_a_recorded_run_replays_offline_to_the_same_scores(tmp_path, bag_of_words):
    data, replies = write(tmp_path / "q.json", RECORDS), tmp_path / "replies.json"
    with scripted_chat(_answers) as chat:
        settings = Settings(llm_url=chat.url, llm_model=MODEL)
        live = run_answer_eval(data, None, ["none", "hybrid"], 2, None, str(tmp_path / "a.db"), settings,
                               record=replies)
        calls = len(chat.bodies)
    assert calls == 6 and live["replies_recorded"] == 6  # 3 closed-book + 3 hybrid answers
    assert live["answers"]["none"]["all"]["em"] == 0.0  # "unknown" is never right
    assert live["answers"]["hybrid"]["all"]["llm_calls"] == 1.0
    assert live["answers"]["hybrid"]["all"]["tokens_in"] == 100  # what the server billed
    # The replay: another store (nothing cached), no server configured at all.
    replayed = run_answer_eval(data, None, ["none", "hybrid"], 2, None, str(tmp_path / "b.db"), Settings(),
                               replay=replies)
    assert replayed["reader"] == f"llm:{MODEL}"
    for method in ("none", "hybrid"):
        assert [q["answer"] for q in replayed["answers"][method]["questions"]] == \
               [q["answer"] for q in live["answers"][method]["questions"]]
        assert replayed["answers"][method]["all"]["f1"] == live["answers"][method]["all"]["f1"]
    # tokens are the replies' own, cached or not: a replay reports what the answers cost
    assert replayed["answers"]["hybrid"]["all"]["tokens_in"] == 100


def test_a_replay_lacking_a_reply_fails_naming_the_file(tmp_path, bag_of_words):
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([{"key": "0" * 64, "model": MODEL, "response": "{}", "tokens_in": 1,
                                    "tokens_out": 1}]), encoding="utf-8")
    with pytest.raises(LLMError, match=r"no recorded reply .*replies\.json"):
        run_answer_eval(write(tmp_path / "q.json", RECORDS), None, ["none"], 2, None, str(tmp_path / "a.db"),
                        Settings(), replay=replies)
