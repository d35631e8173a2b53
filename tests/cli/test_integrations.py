"""`hopgraph mcp`: it starts only on an existing store and says which extra it needs (the server
itself is tested over stdio in tests/integrations/test_mcp_server.py)."""

from __future__ import annotations

import subprocess
import sys

from child_env import child_env

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
