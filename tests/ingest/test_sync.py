"""A folder is the truth: deleted and renamed files are withdrawn on the next run, a renamed file's
vectors are found again, links out of the folder (to files or folders) are not followed unless
asked, and what they bring in goes with the link; `remove` withdraws documents by id, file or folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from testkit import BagOfWordsEmbedder, write_folder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.errors import InputError

TEXTS = {"a.md": "Ravik Foundry runs a single plant in Dharwad.",
         "b.md": "Tessaro Brakes buys disc castings from Ravik Foundry.",
         "c.md": "Kestrel Friction makes brake pads for Tessaro Brakes."}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_folder(tmp_path / "docs", TEXTS)


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
    assert "link.md" in sources(hg)  # stored under its path in the folder, not the one it resolves to
    assert hg.store.chunk_table().texts.count("Private notes about Ravik Foundry.") == 1


def test_a_followed_link_is_withdrawn_when_it_is_deleted_and_kept_when_it_is_not_followed(hg, folder, tmp_path):
    outside = tmp_path / "private.md"
    outside.write_text("Private notes about Ravik Foundry.", encoding="utf-8")
    os.symlink(outside, folder / "link.md")
    hg.index([folder], follow_links=True)
    report = hg.index([folder])  # not followed this time: skipped, and what it brought in stays
    assert "link.md" in sources(hg) and report.withdrawn == 0 and len(report.skipped) == 1
    (folder / "link.md").unlink()
    report = hg.index([folder], follow_links=True)
    assert sources(hg) == set(TEXTS) and report.withdrawn == 1
    assert outside.exists()  # the file the link named is not the folder's to withdraw


def test_remove_names_a_followed_link_by_its_path_in_the_folder(hg, folder, tmp_path, monkeypatch):
    (tmp_path / "private.md").write_text("Private notes about Ravik Foundry.", encoding="utf-8")
    os.symlink(tmp_path / "private.md", folder / "link.md")
    hg.index([folder], follow_links=True)
    monkeypatch.chdir(folder)
    assert hg.remove(["link.md"]).withdrawn == 1 and sources(hg) == set(TEXTS)


def test_a_linked_folder_is_walked_on_request_once_and_never_in_a_loop(hg, folder, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.md").write_text("Kestrel Friction opened a plant in Hosur.", encoding="utf-8")
    os.symlink(elsewhere, folder / "linked")
    os.symlink(folder, folder / "loop")  # a link to the folder itself
    os.symlink(folder / "linked", folder / "again")  # a second way into the linked folder
    report = hg.index([folder])
    assert sources(hg) == set(TEXTS) and [Path(s.path).name for s in report.skipped] == ["again", "linked"]
    hg.index([folder], follow_links=True)
    notes = [d.source for d in hg.store.active_documents().values() if d.source.endswith("notes.md")]
    assert notes == [str(folder.resolve() / "again" / "notes.md")]  # once, under its first path in the folder
    os.remove(folder / "again")
    os.remove(folder / "linked")
    assert hg.index([folder], follow_links=True).withdrawn == 1 and sources(hg) == set(TEXTS)


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
