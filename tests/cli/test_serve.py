"""`hopgraph serve` as the installed module: each way it cannot start is one line and exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from serve_kit import clean_env

BLOCK_FASTAPI = "import sys; sys.modules['fastapi'] = None; from hopgraph.cli.app import main; main()"


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, env=clean_env() | (env or {}), capture_output=True,
                          text=True, timeout=120)


def test_without_fastapi_serve_names_the_extra(tmp_path):
    done = run("-c", BLOCK_FASTAPI, "serve", "--store", "x.db", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert "pip install 'hopgraph[serve]'" in done.stderr and "fastapi" in done.stderr.lower()


def test_a_reachable_address_without_a_token_does_not_start(tmp_path):
    done = run("-m", "hopgraph.cli.app", "serve", "--host", "0.0.0.0", "--store", "x.db", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("hopgraph: error: serving on 0.0.0.0") and "HOPGRAPH_TOKEN" in done.stderr
    assert not (tmp_path / "x.db").exists()


def test_a_token_of_only_whitespace_does_not_start(tmp_path):
    done = run("-m", "hopgraph.cli.app", "serve", "--store", "x.db", cwd=tmp_path, env={"HOPGRAPH_TOKEN": "  "})
    assert done.returncode == 2
    assert done.stderr.startswith("hopgraph: error: the token is empty or only whitespace")


def test_a_missing_store_does_not_start(tmp_path):
    done = run("-m", "hopgraph.cli.app", "serve", "--store", "nope.db", cwd=tmp_path, env={"HOPGRAPH_TOKEN": "t"})
    assert done.returncode == 2 and "no store at nope.db" in done.stderr
    assert not (tmp_path / "nope.db").exists()


def test_the_help_of_serve_names_its_extra_even_without_fastapi(tmp_path):
    done = run("-c", BLOCK_FASTAPI, "serve", "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "pip install 'hopgraph[serve]'" in done.stdout
