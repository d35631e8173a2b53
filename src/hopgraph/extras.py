"""Optional extras: what each one installs, and one message naming it when it is missing.

hopgraph's core installs with `pip install hopgraph`; formats, stores, the HTTP API, the framework
adapters and spaCy's parse are extras (`pip install 'hopgraph[pdf,serve]'`). Code that needs one
calls `require(module, extra, feature)`, which imports the module or raises `MissingExtra` with
the install line. Code that can go on without one (names from text without spaCy's parse) checks
`available(module)` and calls `note_missing` once, so the user learns what quality costs.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from types import ModuleType

from hopgraph.errors import HopgraphError

# extra → what it installs, as the message names it (pyproject.toml's [project.optional-dependencies]).
EXTRAS: dict[str, str] = {
    "nlp": "spaCy and its English model",
    "pdf": "pypdf",
    "docx": "python-docx",
    "postgres": "the PostgreSQL driver (psycopg, pgvector)",
    "serve": "FastAPI, uvicorn, fastapi-offline and sse-starlette",
    "langchain": "langchain-core",
    "llamaindex": "llama-index-core",
    "mcp": "the mcp package (2.x)",
}

logger = logging.getLogger("hopgraph")
_noted: set[str] = set()


class MissingExtra(HopgraphError, ImportError):
    """A feature whose optional extra is not installed; the message says how to install it. An
    ImportError too, so code probing optional imports with `except ImportError` keeps working; a
    HopgraphError, so the CLI prints one line."""

    def __init__(self, extra: str, feature: str) -> None:
        super().__init__(missing_message(extra, feature))
        self.extra = extra


def install_line(extra: str) -> str:
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}: one of {', '.join(EXTRAS)}")
    return f"pip install 'hopgraph[{extra}]'"


def missing_message(extra: str, feature: str) -> str:
    """"reading .pdf files needs pypdf, which is not installed: pip install 'hopgraph[pdf]'"."""
    return f"{feature} needs {EXTRAS[extra]}, which is not installed: {install_line(extra)}"


def available(module: str) -> bool:
    """Whether `module` can be imported, without importing it (a blocked import counts as missing)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or sys.modules[module] is None
        return False


def require(module: str, extra: str, feature: str) -> ModuleType:
    """The imported module, or MissingExtra naming `extra` for `feature` ("reading .pdf files")."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(extra, feature) from None


def note_missing(extra: str, consequence: str) -> None:
    """Say once per process that `extra` would do better ("names come from the surface rule")."""
    if extra in _noted:
        return
    _noted.add(extra)
    logger.warning("hopgraph: %s; for the full quality: %s", consequence, install_line(extra))
