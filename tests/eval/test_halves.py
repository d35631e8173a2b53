"""Held-out halves: a stable SHA-256 split of question ids (or sources), and --half in run_eval."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from evalkit import RECORDS, write
from testkit import BagOfWordsEmbedder

import hopgraph.engine
from hopgraph.errors import InputError
from hopgraph.eval import run_eval
from hopgraph.eval.halves import check_half, half_of, select_half

KEYS = [f"q{i}" for i in range(200)]


def test_half_of_is_the_same_in_every_process_whatever_pythons_hash_seed():
    script = "from hopgraph.eval.halves import half_of; print(''.join(half_of(f'q{i}') for i in range(200)))"
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip() for seed in ("1", "2")}
    assert runs == {"".join(half_of(key) for key in KEYS)}


def test_half_of_splits_ids_near_evenly_and_answers_recorded_values():
    counts = [sum(half_of(key) == half for key in KEYS) for half in "ab"]
    assert sum(counts) == 200 and min(counts) >= 80
    # Recorded once: a change of hash or of how its bytes are read would move questions between halves.
    assert [half_of(book) for book in ("Novel-10146", "Novel-10762", "Novel-2544")] == ["b", "a", "b"]


def test_select_half_partitions_in_order():
    a, b = select_half(KEYS, "a", str), select_half(KEYS, "B", str)
    assert a and b and not set(a) & set(b)
    assert sorted(a + b) == sorted(KEYS) and a == [k for k in KEYS if k in set(a)]
    assert select_half(KEYS, None, str) == KEYS


def test_select_half_keys_whole_groups_together():
    items = [("Novel-10146", i) for i in range(5)] + [("Novel-10762", i) for i in range(5)]
    a = select_half(items, "a", lambda item: item[0])
    assert {book for book, _ in a} == {"Novel-10762"} and len(a) == 5


def test_check_half_refuses_anything_but_a_or_b():
    assert check_half(" A ") == "a" and check_half(None) is None
    with pytest.raises(InputError, match="unknown half 'c'; use a or b"):
        check_half("c")


def test_run_eval_half_scores_only_its_questions_over_the_whole_corpus(tmp_path, monkeypatch):
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())
    data, store = write(tmp_path / "q.json", RECORDS), str(tmp_path / "e.db")
    halves = {half: run_eval(data, methods=["bm25"], store=store, half=half) for half in "ab"}
    expected = {half: sum(half_of(r["_id"]) == half for r in RECORDS) for half in "ab"}
    assert {h: r["n_questions"] for h, r in halves.items()} == expected
    assert {r["n_paragraphs"] for r in halves.values()} == {7}  # both halves share one corpus
    assert all(r["half"] == h for h, r in halves.items())
