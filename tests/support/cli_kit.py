"""Running the `hopgraph` command line in tests: an isolated folder, the commands' inputs, and
`invoke` / `fails`, which run a command and check how it ended."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder
from typer.testing import CliRunner

import hopgraph.cli.app
import hopgraph.engine

DOCS = {
    "01_anvaya_profile.md": "# Anvaya Foundry profile\n\nAnvaya Foundry runs a grey-iron plant in Hosur.\n",
    "02_supply_agreement.md": "# Supply agreement\n\nAnvaya Foundry supplies brake-disc castings to Corvane Brake "
                              "Systems. Kallur Pig Iron Works supplies pig iron to Anvaya Foundry.\n",
    "03_zephyra_contract.md": "# Zephyra contract\n\nCorvane Brake Systems supplies calipers to Zephyra Motors. "
                              "Kallur Iron Works is named as a second source.\n",
}
TRIPLES = """subject,relation,object,source,date,subject_type,object_type
Anvaya Foundry,LOCATED_IN,Hosur,01_anvaya_profile.md,,ORG,LOCATION
Anvaya Foundry,SUPPLIES,Corvane Brake Systems,02_supply_agreement.md,2021,ORG,ORG
Kallur Pig Iron Works,SUPPLIES,Anvaya Foundry,02_supply_agreement.md,,ORG,ORG
Corvane Brake Systems,SUPPLIES,Zephyra Motors,03_zephyra_contract.md,,ORG,ORG
Kallur Iron Works,SUPPLIES,Corvane Brake Systems,03_zephyra_contract.md,,ORG,ORG
Corvane Brake Systems,SUPPLIES,,03_zephyra_contract.md,,ORG,ORG
Zephyra Motors,LOCATED_IN,Chennai,Dealer list 2024,,ORG,LOCATION
"""


def isolate(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Run in `folder` (no hopgraph.toml), without HOPGRAPH_* settings, with the bag-of-words embedder."""
    monkeypatch.chdir(folder)
    for key in list(os.environ):
        if key.startswith("HOPGRAPH_"):
            monkeypatch.delenv(key)
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())


def write_inputs(folder: Path) -> None:
    docs = folder / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    (folder / "triples.csv").write_text(TRIPLES, encoding="utf-8")


def invoke(*args: str) -> str:
    result = CliRunner().invoke(hopgraph.cli.app.app, [*args, "--quiet"])
    assert result.exit_code == 0, result.output
    return result.stdout


def fails(monkeypatch, capsys, *args: str) -> str:
    """Run `hopgraph ARGS` as the installed entry point does; return its single stderr line."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["hopgraph", *args, "--quiet"])
    with pytest.raises(SystemExit) as exit_:
        hopgraph.cli.app.main()
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("hopgraph: error: ")
    return err


class TimedStdout(io.StringIO):
    """stdout that remembers when each write came (what a person at the terminal would see, and when)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        self.writes.append((time.monotonic(), text))
        return super().write(text)
