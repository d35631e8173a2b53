"""Plugins from outside the package (hopgraph/plugins.py): the toy plugin in tests/support/toy_plugin_site
registers through its entry points, and what it adds works end to end through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testkit import REPO

# --- the toy ranker and reader (tests/support/toy_plugin_site/toy_plugin/ranker.py, reader.py) --------


def _toy_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command line in a child process with the toy plugin's site on its path, as if the
    plugin were pip-installed beside hopgraph."""
    site = REPO / "tests" / "support" / "toy_plugin_site"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOPGRAPH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(site)])
    env["COLUMNS"] = "1000"  # help one line an option, not wrapped in the middle of what is looked for
    return subprocess.run([sys.executable, "-c", "from hopgraph.cli.app import main; main()", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _toy_ok(*args: str, cwd: Path) -> str:
    done = _toy_cli(*args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_toy_reader_end_to_end(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "pets.toy").write_text("Rex | Rex is a dog who guards the Hosur plant.\n\n"
                                     "Tom | Tom is a cat who sleeps in the Pune office.\n", encoding="utf-8")
    (folder / "table.csv").write_text("a,b\n", encoding="utf-8")  # no reader: the walk leaves it out
    assert ".toy (one `title | text` document a line" in _toy_ok("index", "--help", cwd=tmp_path)
    indexed = json.loads(_toy_ok("index", str(folder), "--store", "toy.db", "--names-from", "titles", "--json",
                                 "--quiet", cwd=tmp_path))
    assert (indexed["documents"], indexed["added"], indexed["skipped"]) == (2, 2, [])
    asked = json.loads(_toy_ok("ask", "Which animal guards the plant?", "--mode", "search", "--method", "bm25",
                               "--no-answer", "--json", "--store", "toy.db", "--quiet", cwd=tmp_path))
    assert [hit["title"] for hit in asked["hits"]][:2] == ["Rex", "Tom"]  # the file's two documents, searchable


def test_toy_ranker_end_to_end(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    texts = {"short.md": "# Short\nA line.", "long.md": "# Long\n" + "Anvaya Foundry casts brake discs. " * 6,
             "middle.md": "# Middle\nTessaro Brakes buys castings from Anvaya Foundry."}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    assert "longest (the longest chunks first" in _toy_ok("ask", "--help", cwd=tmp_path)
    _toy_ok("index", str(folder), "--store", "toy.db", "--names-from", "titles", "--quiet", cwd=tmp_path)
    asked = json.loads(_toy_ok("ask", "Who casts brake discs?", "--mode", "search", "--method", "longest+names",
                               "--top", "3", "--no-answer", "--json", "--store", "toy.db", "--quiet", cwd=tmp_path))
    assert [hit["title"] for hit in asked["hits"]] == ["Long", "Middle", "Short"]
    assert {hit["found_by"] for hit in asked["hits"]} == {"longest"}
    assert asked["retrieval"]["method"] == "longest+names"
    unknown = _toy_cli("ask", "Who?", "--mode", "search", "--method", "shortest", "--store", "toy.db", cwd=tmp_path)
    assert unknown.returncode == 2 and "use a ranker (vector, bm25, hybrid, longest)" in unknown.stderr


# --- the toy answer mode (tests/support/toy_plugin_site/toy_plugin/mode.py) --------------------------


def test_toy_mode_end_to_end(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kestrel.txt").write_text("Kestrel Castings has moved its casting line to Ranipet.", encoding="utf-8")
    (docs / "orla.txt").write_text("Orla Forge has moved its press shop to Vellore.", encoding="utf-8")
    _toy_ok("index", str(docs), "--store", "toy.db", "--quiet", cwd=tmp_path)
    helped = _toy_ok("ask", "--help", cwd=tmp_path)
    assert "toy (a toy plugin's mode" in " ".join(helped.replace("│", " ").split())
    answer = json.loads(_toy_ok("ask", "Where did Orla Forge move its press shop?", "--mode", "toy",
                                "--store", "toy.db", "--json", "--quiet", cwd=tmp_path))
    assert answer["mode"] == "toy" and answer["answer"]["text"] == "toy mode: the best chunk is 'orla'"
    assert [c["source"] for c in answer["answer"]["citations"]] == ["orla.txt#1"]
