"""Plugins from outside the package, through the real command line in a child process: the toy
plugin's folder (tests/support/toy_plugin_site) on PYTHONPATH, its entry points seen as installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from child_env import child_env

SITE = Path(__file__).parent / "support" / "toy_plugin_site"


def _hopgraph(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = child_env()
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(SITE)])
    return subprocess.run([sys.executable, "-m", "hopgraph.cli.app", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


# --- the toy answer mode (query/modes/) ------------------------------------------------------------


def test_toy_mode_end_to_end(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kestrel.txt").write_text("Kestrel Castings has moved its casting line to Ranipet.", encoding="utf-8")
    (docs / "orla.txt").write_text("Orla Forge has moved its press shop to Vellore.", encoding="utf-8")
    store = str(tmp_path / "toy.db")
    indexed = _hopgraph("index", str(docs), "--store", store, "--quiet", cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr

    helped = _hopgraph("ask", "--help", cwd=tmp_path)
    assert "toy (a toy plugin's mode" in " ".join(helped.stdout.replace("│", " ").split())

    asked = _hopgraph("ask", "Where did Orla Forge move its press shop?", "--mode", "toy", "--store", store,
                      "--json", "--quiet", cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["mode"] == "toy" and answer["answer"]["text"] == "toy mode: the best chunk is 'orla'"
    assert [c["source"] for c in answer["answer"]["citations"]] == ["orla.txt#1"]
