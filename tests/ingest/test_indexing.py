"""The index and remove use cases (ingest/indexing.py): a run reads the store's active documents
once, whatever it does — index a folder, withdraw a deleted file, remove by id or file — and a
gazetteer given once stays in force."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from testkit import BagOfWordsEmbedder, write_folder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.ingest import indexing
from hopgraph.ingest.gazetteer import stored_gazetteer
from hopgraph.records.names import GazetteerEntry

TEXTS = {"a.md": "# Ravik Foundry\nRavik Foundry runs a single plant in Dharwad.",
         "b.md": "# Tessaro Brakes\nTessaro Brakes buys disc castings from Ravik Foundry.",
         "c.md": "# Kestrel Friction\nKestrel Friction makes brake pads for Tessaro Brakes."}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_folder(tmp_path / "docs", TEXTS)


class Counted:
    """A store method that counts its calls."""

    def __init__(self, method: Callable[..., Any]) -> None:
        self.method, self.calls = method, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.method(*args, **kwargs)


@pytest.mark.parametrize("names_from", ["text", "titles"])  # `text` reads new paragraphs: the texts after the run
def test_each_run_reads_the_active_documents_once(tmp_path: Path, folder: Path, names_from: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with HopGraph(str(tmp_path / "s.db"), Settings(names_from=names_from), embedder=BagOfWordsEmbedder()) as hg:
        reads = Counted(hg.store.active_documents)
        monkeypatch.setattr(hg.store, "active_documents", reads)
        runs: list[tuple[str, Callable[[], Any]]] = [
            ("index a folder", lambda: hg.index([folder])),
            ("withdraw a deleted file", lambda: ((folder / "c.md").unlink(), hg.index([folder]))[1]),
            ("remove a file", lambda: hg.remove([str(folder / "b.md")])),
        ]
        for what, run in runs:
            reads.calls = 0
            report = run()
            assert report.changed, what
            assert reads.calls == 1, what


def test_remove_by_id_withdraws_through_the_same_steps(tmp_path: Path, folder: Path) -> None:
    with HopGraph(str(tmp_path / "s.db"), Settings(names_from="titles"), embedder=BagOfWordsEmbedder()) as hg:
        hg.index([folder])
        [doc_id] = [d.id for d in hg.store.active_documents().values() if d.title == "Tessaro Brakes"]
        report = indexing.remove_documents(hg.store, hg.embedder, [str(doc_id)], hg.settings)
        assert report.withdrawn == 1
        assert {d.title for d in hg.store.active_documents().values()} == {"Ravik Foundry", "Kestrel Friction"}
        assert hg.store.recent_runs(1)[0].command == "remove"


def test_a_gazetteer_given_once_stays_in_force(tmp_path: Path, folder: Path) -> None:
    names = tmp_path / "names.csv"
    names.write_text("name,aliases,type,id\nRavik Foundry,Ravik,ORG,org:ravik\n", encoding="utf-8")
    with HopGraph(str(tmp_path / "s.db"), Settings(names_from="titles"), embedder=BagOfWordsEmbedder()) as hg:
        hg.index([folder], names_file=names)
        entry = GazetteerEntry("Ravik Foundry", ("Ravik",), "ORG", "org:ravik")
        assert stored_gazetteer(hg.store) == [entry]
        (folder / "d.md").write_text("# Ravik notes\nRavik casts discs.", encoding="utf-8")
        later = hg.index([folder])  # no --names: the stored gazetteer builds the names
        assert later.added == 1 and stored_gazetteer(hg.store) == [entry]
        assert "Ravik" in {n.surface for n in hg.store.name_graph().names}
