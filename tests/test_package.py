"""The package as a user installs it: one version everywhere, its licence, its type marker, and
version ranges (not pins) for what it depends on."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
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


def test_the_build_backend_is_a_range_too() -> None:
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert build["requires"] and not [r for r in build["requires"] if "==" in r]


def test_a_built_wheel_ships_the_type_marker_the_licence_and_the_data(tmp_path: Path) -> None:
    source = tmp_path / "source"  # a copy: an in-tree build would leave build/ and *.egg-info behind
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "--wheel-dir", str(tmp_path / "dist"), str(source)], check=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("hopgraph-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = archive.read(info).decode()
    assert {"hopgraph/py.typed", "hopgraph/assets/stop_words_en.txt", "hopgraph/assets/NOTICE.md"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in meta.splitlines()
    assert {"hopgraph/store/sqlite/schema.sql", "hopgraph/store/postgres/schema.sql"} <= names
