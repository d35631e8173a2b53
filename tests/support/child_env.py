"""The environment of a child process that must run the hopgraph under test (this checkout's src,
not whatever the venv installed), from any working directory."""

from __future__ import annotations

import os
from pathlib import Path

import hopgraph


def hopgraph_path() -> str:
    """PYTHONPATH with the folder holding the imported hopgraph first (an absolute path)."""
    code = str(Path(hopgraph.__file__).resolve().parents[1])
    return os.pathsep.join(filter(None, [code, os.environ.get("PYTHONPATH", "")]))


def child_env() -> dict[str, str]:
    """This process's environment without HOPGRAPH_* settings, with `hopgraph_path()`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOPGRAPH_")}
    return env | {"PYTHONPATH": hopgraph_path()}
