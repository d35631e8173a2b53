"""The package as a user installs it: one version everywhere, its licence, its type marker, and
version ranges (not pins) for what it depends on."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata, resources
from pathlib import Path

import hopgraph

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_the_installed_ones_and_the_changelogs() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\d+\.\d+\.\d+)", changelog, re.MULTILINE)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert newest is not None
    assert hopgraph.__version__ == metadata.version("hopgraph") == project["version"] == newest.group(1)


def test_the_licence_ships_and_is_named_in_the_metadata() -> None:
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert metadata.metadata("hopgraph")["License-Expression"] == "MIT"


def test_the_package_says_it_is_typed() -> None:
    assert resources.files("hopgraph").joinpath("py.typed").is_file()


def test_dependencies_are_ranges_and_only_the_lock_pins() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    assert wanted and not [d for d in wanted if "==" in d]
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()
    pins = [line for line in lock if line and not line.startswith("#")]
    assert pins and all("==" in line for line in pins)
