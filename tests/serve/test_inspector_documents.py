"""The inspector's documents view in headless chromium, on `hopgraph serve` over a copy of the sample
store: files and a folder's files uploaded through the page one by one with a progress line, a file
the server cannot read shown as its own error, the list as GET /documents gives it, and a document
removed only once the confirm is accepted."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from inspector_app import CHROMIUM, inspector_page
from serve_kit import running_server

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason=f"Debian's chromium is not installed at {CHROMIUM}; Playwright's own browser download is not used")]

LANTERN = "# Quillfeather Lantern Works\n\nQuillfeather Lantern Works makes brass lanterns in Regina.\n"
# every text the progress line shows, in order (it changes faster than a test can poll it)
RECORD_PROGRESS = """() => { window.progressSeen = [];
  new MutationObserver(() => window.progressSeen.push(document.getElementById("upload-progress").textContent))
    .observe(document.getElementById("upload-progress"), { childList: true, characterData: true, subtree: true }); }"""


@contextmanager
def documents_view(base: str) -> Iterator[Any]:
    with inspector_page(base) as page:
        page.click(".tab[data-view=documents]")
        yield page


def listed(base: str) -> dict[str, dict[str, Any]]:
    return {d["title"]: d for d in httpx.get(f"{base}/documents", timeout=120).json()["documents"]}


def test_files_are_uploaded_listed_and_removed_through_the_page(fresh_store, tmp_path):
    from playwright.sync_api import expect

    (tmp_path / "lantern.md").write_text(LANTERN, encoding="utf-8")
    (tmp_path / "run.exe").write_bytes(b"MZ\x00\x01")
    with running_server(fresh_store) as base, documents_view(base) as page:
        before = listed(base)
        rows = page.locator("#documents-table tbody tr")
        expect(rows).to_have_count(len(before), timeout=60_000)
        expect(page.locator("#documents-note")).to_have_text(
            f"{len(before)} document(s), {sum(d['chunks'] for d in before.values())} chunk(s) indexed.")

        page.evaluate(RECORD_PROGRESS)
        page.set_input_files("#upload-files", [tmp_path / "lantern.md", tmp_path / "run.exe"])
        expect(page.locator("#upload-progress")).to_have_text("Uploaded 1 of 2 file(s); 1 failed.", timeout=300_000)
        assert page.evaluate("window.progressSeen")[:2] == ["1 of 2: lantern.md", "2 of 2: run.exe"]
        expect(page.locator("#upload-errors li")).to_have_count(1)
        expect(page.locator("#upload-errors li")).to_contain_text("run.exe: ")

        lantern = listed(base)["Quillfeather Lantern Works"]
        row = rows.filter(has=page.locator(".doc-title", has_text="Quillfeather Lantern Works"))
        expect(rows).to_have_count(len(before) + 1)
        expect(row).to_have_attribute("data-doc", str(lantern["id"]))
        expect(row.locator("td").nth(1)).to_have_text("upload:lantern.md")
        expect(row.locator("td").nth(2)).to_have_text("1")

        deletes: list[str] = []
        page.on("request", lambda request: deletes.append(request.url) if request.method == "DELETE" else None)
        asked: list[str] = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
        row.locator(".remove").click()
        page.wait_for_timeout(500)  # a DELETE sent on the click would have been seen by now
        assert asked == ["Remove “Quillfeather Lantern Works” from the index?"] and deletes == []
        expect(row).to_have_count(1)

        page.once("dialog", lambda dialog: dialog.accept())
        row.locator(".remove").click()
        expect(row).to_have_count(0, timeout=300_000)
        expect(rows).to_have_count(len(before))
        assert deletes == [f"{base}/documents/{lantern['id']}"]
        assert set(listed(base)) == set(before)


def test_a_folders_files_are_uploaded_one_by_one(fresh_store, tmp_path):
    from playwright.sync_api import expect

    folder = tmp_path / "studios"
    (folder / "north").mkdir(parents=True)
    (folder / "ember.md").write_text("# Ember Reef Studio\n\nEmber Reef Studio is based in Saskatoon.\n",
                                     encoding="utf-8")
    (folder / "north" / "owl.txt").write_text("Brass Owl Interactive makes puzzle games in Yellowknife.\n",
                                              encoding="utf-8")
    with running_server(fresh_store) as base, documents_view(base) as page:
        expect(page.locator("#documents-table tbody tr").first).to_be_visible(timeout=60_000)
        page.set_input_files("#upload-folder", folder)
        expect(page.locator("#upload-progress")).to_have_text("Uploaded 2 of 2 file(s).", timeout=300_000)
        expect(page.locator("#upload-errors li")).to_have_count(0)
        sources = {d["source"] for d in listed(base).values()}
        assert {"upload:ember.md", "upload:owl.txt"} <= sources
        titles = page.locator("#documents-table .doc-title")
        for title in ("Ember Reef Studio", "owl"):  # a text file without a heading is titled by its name
            expect(titles.filter(has_text=re.compile(f"^{title}$"))).to_have_count(1)
