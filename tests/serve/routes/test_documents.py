"""POST, GET and DELETE /documents over real HTTP, on a server over a copy of the sample store:
added, updated, read back, withdrawn; unknown ids; path traversal in an id and an upload name."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from serve_kit import running_server

from hopgraph.engine import HopGraph

TEXT = ("Zorblax Quarry Games is a video game developer based in Lethbridge. Zorblax Quarry Games made "
        "the puzzle game Hollow Lantern for the PlayStation Portable.")
QUESTION = "Which developer made Hollow Lantern?"


@pytest.fixture(scope="module")
def writable(sample_store: Path, tmp_path_factory: pytest.TempPathFactory):
    """A server over a copy of the sample store, run from the store's folder, two folders deep."""
    folder = tmp_path_factory.mktemp("writable") / "deep" / "cwd"
    folder.mkdir(parents=True)
    store = Path(shutil.copyfile(sample_store, folder / "sample.db"))
    with running_server(store) as base:
        yield base, folder


def titles_found(base: str, question: str) -> list[str]:
    answered = httpx.post(f"{base}/ask", json={"question": question, "mode": "search", "method": "hybrid"},
                          timeout=120)
    assert answered.status_code == 200
    return [hit["title"] for hit in answered.json()["hits"]]


def test_a_text_is_added_then_updated_then_unchanged_and_questions_find_it(writable):
    base, _ = writable
    added = httpx.post(f"{base}/documents", json={"title": "Zorblax Quarry Games", "text": TEXT}, timeout=300)
    assert added.status_code == 201, added.text
    assert added.json()["added"] == 1 and added.json()["chunks_embedded"] == 1
    (stored,) = added.json()["documents"]
    assert stored["title"] == "Zorblax Quarry Games"
    assert "Zorblax Quarry Games" in titles_found(base, QUESTION)  # the reader was renewed after the write

    read = httpx.get(f"{base}/documents/{stored['id']}").json()
    assert read["title"] == "Zorblax Quarry Games" and read["chunks"][0]["text"] == TEXT
    assert read["chunks"][0]["citation"] == "Zorblax Quarry Games#1"

    again = httpx.post(f"{base}/documents", json={"title": "Zorblax Quarry Games", "text": TEXT}, timeout=300)
    assert again.status_code == 200 and again.json()["unchanged"] == 1
    changed = httpx.post(f"{base}/documents", json={"title": "Zorblax Quarry Games", "text": TEXT + " It closed."},
                         timeout=300)
    assert changed.status_code == 200 and changed.json()["updated"] == 1
    assert httpx.get(f"{base}/documents/{changed.json()['documents'][0]['id']}").json()["chunks"][0]["text"] \
        .endswith("It closed.")


def test_an_upload_is_read_from_the_body_by_its_suffix(writable):
    base, _ = writable
    markdown = b"# Brass Owl Interactive\n\nBrass Owl Interactive is a studio in Saskatoon that made Ember Reef.\n"
    uploaded = httpx.post(f"{base}/documents", files={"file": ("notes/brass.md", markdown, "text/markdown")},
                          timeout=300)
    assert uploaded.status_code == 201, uploaded.text
    (stored,) = uploaded.json()["documents"]
    assert stored == {"id": stored["id"], "title": "Brass Owl Interactive", "source": "upload:brass.md"}
    assert "Saskatoon" in httpx.get(f"{base}/documents/{stored['id']}").json()["chunks"][0]["text"]


def test_a_traversing_upload_name_is_only_a_label(writable, tmp_path):
    base, cwd = writable
    target = tmp_path / "outside" / "planted.md"
    names = ["../../planted.md", str(target), "..\\..\\planted.md"]
    for name in names:
        sent = httpx.post(f"{base}/documents", timeout=300,
                          files={"file": (name, b"Quillfeather Labs builds lanterns in Regina.\n", "text/markdown")})
        assert sent.status_code in (200, 201), sent.text
        assert sent.json()["documents"][0]["source"] == "upload:planted.md"
    assert not target.exists() and not target.parent.exists()
    assert not any((folder / "planted.md").exists() for folder in (cwd, cwd.parent, cwd.parent.parent))
    assert all(p.name.startswith(("sample.db", "serve-")) for p in cwd.iterdir())  # the store's files, the log


@pytest.mark.parametrize("name", ["..", "/", "noextension", ""])
def test_an_upload_without_a_usable_name_is_422(writable, name):
    base, _ = writable
    refused = httpx.post(f"{base}/documents", files={"file": (name, b"some text", "text/plain")})
    assert refused.status_code in (400, 422) and refused.json()["error"]


def test_bad_documents_are_refused_with_their_status(writable):
    base, _ = writable
    assert httpx.post(f"{base}/documents", files={"file": ("run.exe", b"MZ\x00", "application/octet-stream")}
                      ).status_code == 422
    assert httpx.post(f"{base}/documents", files={"other": ("a.txt", b"text", "text/plain")}).status_code == 422
    assert httpx.post(f"{base}/documents", content=b"plain", headers={"content-type": "text/plain"}).status_code == 415
    assert httpx.post(f"{base}/documents", json={"title": "No text"}).status_code == 422
    blank = httpx.post(f"{base}/documents", json={"title": "\u000b", "text": "\u00ae"})  # found by the API fuzz
    assert blank.status_code == 422 and "white space" in blank.json()["error"]
    wrong_type = httpx.post(f"{base}/documents", json={"title": 42, "text": "a number is not a title"})
    assert wrong_type.status_code == 422 and "title" in wrong_type.json()["error"]  # strict: not coerced to "42"
    assert httpx.post(f"{base}/documents", content=b"{nope", headers={"content-type": "application/json"}
                      ).status_code == 400


def test_a_text_with_a_nul_character_is_refused_as_a_file_with_one_is_skipped(writable):
    base, _ = writable
    refused = httpx.post(f"{base}/documents", json={"title": "Binary", "text": "half\u0000text"})
    assert refused.status_code == 422 and "text" in refused.json()["error"]


@pytest.mark.parametrize("doc_id", ["..%2F..%2Fetc%2Fpasswd", "%2E%2E", "1%2F..%2F..%2Fsample.db", "abc", "0"])
def test_a_traversing_or_malformed_id_reaches_no_file(writable, doc_id):
    base, _ = writable
    for method in ("GET", "DELETE"):
        refused = httpx.request(method, f"{base}/documents/{doc_id}")
        assert refused.status_code in (404, 422), refused.text
        assert "error" in refused.json() and "root:" not in refused.text and "SQLite" not in refused.text


def test_unknown_ids_are_404_and_a_delete_withdraws(writable):
    base, _ = writable
    assert httpx.get(f"{base}/documents/999999").status_code == 404
    assert httpx.delete(f"{base}/documents/999999").json() == {"error": "no document with id 999999"}
    added = httpx.post(f"{base}/documents", json={"title": "Vellum Ghost", "text": "Vellum Ghost is a lost game "
                                                  "about the Hollowmere lighthouse."}, timeout=300).json()
    doc_id = added["documents"][0]["id"]
    assert "Vellum Ghost" in titles_found(base, "What is the Hollowmere lighthouse game?")
    withdrawn = httpx.delete(f"{base}/documents/{doc_id}", timeout=300)
    assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn"] == 1
    assert httpx.get(f"{base}/documents/{doc_id}").status_code == 404
    assert httpx.delete(f"{base}/documents/{doc_id}").status_code == 404
    assert "Vellum Ghost" not in titles_found(base, "What is the Hollowmere lighthouse game?")


def test_a_delete_goes_through_the_facade_s_remove(sample_store: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """In process, so the call can be seen: DELETE withdraws as `hopgraph remove` does."""
    from fastapi.testclient import TestClient

    from hopgraph.config import Settings
    from hopgraph.engine import HopGraph
    from hopgraph.ingest.pipeline import IndexReport
    from hopgraph.serve.app import create_app

    store = shutil.copyfile(sample_store, tmp_path / "sample.db")
    removed: list[list[str]] = []
    remove = HopGraph.remove

    def counted(self: HopGraph, targets: list[str]) -> IndexReport:
        removed.append(list(targets))
        return remove(self, targets)

    monkeypatch.setattr(HopGraph, "remove", counted)
    with TestClient(create_app(str(store), Settings())) as client:
        doc_id = client.post("/documents", json={"title": "Vellum Ghost", "text": "A lost game."}).json()[
            "documents"][0]["id"]
        withdrawn = client.delete(f"/documents/{doc_id}")
    assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn"] == 1
    assert removed == [[str(doc_id)]]


def test_the_list_shows_an_added_document_with_its_counts_until_it_is_deleted(writable):
    base, _ = writable
    before = httpx.get(f"{base}/documents", timeout=120)
    assert before.status_code == 200 and before.json()["documents"]
    text = ("Mossgrave Pictures is a studio in Fulgencio Batista's Havana. Mossgrave Pictures filmed Salt Tide. "
            "Fulgencio Batista appears in it.")
    added = httpx.post(f"{base}/documents", json={"title": "Mossgrave Pictures", "text": text}, timeout=300).json()
    doc_id = added["documents"][0]["id"]
    listed = {d["id"]: d for d in httpx.get(f"{base}/documents", timeout=120).json()["documents"]}
    assert set(listed) == {d["id"] for d in before.json()["documents"]} | {doc_id}
    mine = listed[doc_id]
    assert (mine["title"], mine["source"], mine["chunks"]) == ("Mossgrave Pictures", "api:Mossgrave Pictures", 1)
    assert "Mossgrave Pictures" in mine["names"] and mine["added_at"].endswith("+00:00")
    assert mine["links_out"] >= 1  # its mention of Fulgencio Batista links to his paragraph in the sample
    assert httpx.delete(f"{base}/documents/{doc_id}", timeout=300).status_code == 200
    after = httpx.get(f"{base}/documents", timeout=120).json()["documents"]
    assert doc_id not in {d["id"] for d in after}


def test_health_names_the_store_state_served_and_moves_on_with_a_write(writable):
    """Issue 24: a deploy script sees from GET /health (no token) whether a replica serves a write."""
    base, folder = writable
    before = httpx.get(f"{base}/health").json()
    added = httpx.post(f"{base}/documents", json={"title": "Pellucid Gauge Works",
                                                  "text": "Pellucid Gauge Works calibrates barometers in Moose Jaw."},
                       timeout=300)
    assert added.status_code == 201, added.text
    after = httpx.get(f"{base}/health").json()
    with HopGraph(str(folder / "sample.db"), create=False) as hg:
        committed = hg.store.meta()["generation"]
    assert before["generation"] != committed == after["generation"]
    assert after["serving_since"] >= before["serving_since"] and after["status"] == "ok"
    assert httpx.delete(f"{base}/documents/{added.json()['documents'][0]['id']}", timeout=300).status_code == 200
