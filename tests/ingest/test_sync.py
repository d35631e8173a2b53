"""A folder is the truth: deleted and renamed files are withdrawn on the next run, a renamed file's
vectors are found again, links out of the folder are not followed unless asked, and `remove`
withdraws documents by id, file or folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError

TEXTS = {"a.md": "Ravik Foundry runs a single plant in Dharwad.",
         "b.md": "Tessaro Brakes buys disc castings from Ravik Foundry.",
         "c.md": "Kestrel Friction makes brake pads for Tessaro Brakes."}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in TEXTS.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


@pytest.fixture
def hg(tmp_path: Path):
    with HopGraph(str(tmp_path / "sync.db"), Settings(names_from="titles"), embedder=BagOfWordsEmbedder()) as graph:
        yield graph


def sources(hg: HopGraph) -> set[str]:
    return {Path(d.source).name for d in hg.store.active_documents().values()}


def test_deleted_renamed_and_edited_files_are_followed_on_the_next_run(hg, folder):
    hg.index([folder])
    (folder / "a.md").unlink()
    (folder / "b.md").rename(folder / "b_renamed.md")
    (folder / "c.md").write_text("Kestrel Friction now makes brake pads in Pune.", encoding="utf-8")
    report = hg.index([folder])
    assert sources(hg) == {"b_renamed.md", "c.md"}
    assert (report.added, report.updated, report.withdrawn) == (1, 1, 2)  # a.md and b.md's old path withdrawn
    assert report.embedded == 1  # only the edited text: the renamed file's vector is found by its text hash
    assert len(hg.search("Tessaro Brakes castings", method="bm25").hits) >= 1


def test_one_folder_however_it_is_written(hg, folder, monkeypatch):
    monkeypatch.chdir(folder.parent)
    for spelling in ("docs", "./docs/", str(folder)):
        hg.index([spelling])
    assert len(hg.store.active_documents()) == 3


def test_a_file_skipped_this_time_keeps_what_an_earlier_run_indexed(hg, folder):
    hg.index([folder])
    (folder / "a.md").write_bytes(b"\xff\xfe\x00 not utf-8 \x00")
    report = hg.index([folder])
    assert sources(hg) == set(TEXTS) and report.withdrawn == 0 and len(report.skipped) == 1


def test_a_link_to_a_file_outside_the_folder_is_followed_only_on_request(hg, folder, tmp_path):
    outside = tmp_path / "private.md"
    outside.write_text("Private notes about Ravik Foundry.", encoding="utf-8")
    os.symlink(outside, folder / "link.md")
    os.symlink(folder / "a.md", folder / "inner_link.md")  # a link inside the folder: the file it names, once
    report = hg.index([folder])
    assert sources(hg) == set(TEXTS) and len(hg.store.active_documents()) == 3
    assert [Path(s.path).name for s in report.skipped] == ["link.md"]
    assert "outside the folder (--follow-links" in report.skipped[0].reason
    hg.index([folder], follow_links=True)
    assert "private.md" in sources(hg)  # stored under the resolved path of the file it names


def test_remove_by_id_file_or_folder(hg, folder):
    hg.index([folder])
    by_name = {Path(d.source).name: d.id for d in hg.store.active_documents().values()}
    assert hg.remove([str(by_name["a.md"])]).withdrawn == 1
    assert hg.remove([str(folder / "b.md")]).withdrawn == 1
    assert sources(hg) == {"c.md"}
    assert all(hit.title != "b" for hit in hg.search("Tessaro Brakes castings", method="bm25").hits)
    assert hg.remove([str(folder)]).withdrawn == 1 and not hg.store.active_documents()


def test_remove_of_something_not_indexed_is_an_error_and_withdraws_nothing(hg, folder):
    hg.index([folder])
    with pytest.raises(InputError, match=r"nothing\.md: no indexed document has this id, file or folder"):
        hg.remove([str(folder / "a.md"), str(folder / "nothing.md")])
    assert len(hg.store.active_documents()) == 3
