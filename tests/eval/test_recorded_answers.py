"""Replaying what the real local model answered on 100 HotpotQA questions, 50 per half
(bench/results/answers_hotpotqa_100_*, recorded by `hopgraph eval --answers --record`): the bundled
sample's pooled paragraphs indexed with the real embedder, then `auto` and `hybrid` asked again with
no server at all, to the same answers and the same EM and F1 as the recorded run. A change to what
`auto` or `hybrid` retrieves, or to the answer prompt, changes the prompts and fails this test by a
missing reply: record again with the command in docs/BENCHMARKS.md ("Answers by the local model on
100 questions per set")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit import REPO

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.eval.answers import run_answer_eval

RESULTS = REPO / "bench" / "results"
PER_HALF = 50


@pytest.fixture(scope="module")
def pooled_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("recorded_answers") / "hotpotqa.db")  # indexed by the first run


@pytest.mark.parametrize("half", ["a", "b"])
def test_the_local_model_s_recorded_answers_replay_to_the_same_scores(half: str, pooled_store: str) -> None:
    recorded = json.loads((RESULTS / f"answers_hotpotqa_100_{half}.json").read_text(encoding="utf-8"))
    replies = RESULTS / f"answers_hotpotqa_100_{half}_replies.json"
    replayed = run_answer_eval(Path(sample_path()), None, ["auto", "hybrid"], 5, PER_HALF, pooled_store,
                               Settings(), replay=replies, half=half)
    assert replayed["reader"] == recorded["reader"]
    for method in ("auto", "hybrid"):
        again, then = replayed["answers"][method], recorded["answers"][method]
        assert [q["id"] for q in again["questions"]] == [q["id"] for q in then["questions"]]
        assert [q["answer"] for q in again["questions"]] == [q["answer"] for q in then["questions"]]
        assert (again["all"]["em"], again["all"]["f1"]) == (then["all"]["em"], then["all"]["f1"])
