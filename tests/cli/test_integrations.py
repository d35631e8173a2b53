"""`hopgraph mcp`: it starts only on an existing store and says which extra it needs (the server
itself is tested over stdio in tests/integrations/test_mcp_server.py)."""

from __future__ import annotations

import re
import subprocess
import sys

import typer
from child_env import child_env
from typer.testing import CliRunner

from hopgraph.cli.app import app

# The mcp package blocked as if not installed, then the command as the entry point runs it.
WITHOUT_MCP = """
import sys
sys.modules["mcp"] = None
from hopgraph.cli.app import main
main(["mcp", "--store", sys.argv[1]])
"""


def test_mcp_without_the_extra_exits_2_naming_it(tiny_graph, tmp_path):
    done = subprocess.run([sys.executable, "-c", WITHOUT_MCP, str(tiny_graph.store.location)], cwd=tmp_path,
                          env=child_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == ("hopgraph: error: hopgraph.integrations.mcp needs the mcp package (2.x), which is not "
                           "installed: pip install 'hopgraph[mcp]'\n")


def test_mcp_on_a_missing_store_exits_2_and_creates_nothing(tmp_path):
    done = subprocess.run([sys.executable, "-m", "hopgraph.cli.app", "mcp", "--store", "missing.db"], cwd=tmp_path,
                          env=child_env(), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.startswith("hopgraph: error: no store at missing.db")
    assert not (tmp_path / "missing.db").exists()


def test_the_help_of_mcp_names_its_extra():
    done = subprocess.run([sys.executable, "-m", "hopgraph.cli.app", "mcp", "--help"], env=child_env() | {
        "COLUMNS": "200"}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert "pip install 'hopgraph[mcp]'" in done.stdout


def test_every_command_whose_help_names_an_extra_shows_it():
    # rich reads "[mcp]" as a style tag and drops it unless written `\\[mcp]`: the rendered help
    # must show every extra its docstring names, for the commands of today and tomorrow.
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    named = {name: re.findall(r"hopgraph\\*\[(\w+)\]", command.help or "") for name, command in commands.items()}
    assert named["mcp"] == ["mcp"] and named["serve"] == ["serve"]
    runner = CliRunner()
    for name, extras in named.items():
        shown = runner.invoke(app, [name, "--help"], terminal_width=200).output
        for extra in extras:
            assert f"pip install 'hopgraph[{extra}]'" in shown, (name, shown)
