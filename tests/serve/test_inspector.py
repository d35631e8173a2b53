"""The web inspector: its JSON agrees with search, its page is self-contained, its routes refuse bad
input over real HTTP, and headless chromium drives the page end to end (a known two-hop question,
the link it followed, a citation opened, the graph and the community tree drawn)."""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from inspector_app import CHROMIUM, LINKED, QUESTION, build_sample_store, inspector_page, serving

from hopgraph.serve.inspector import inspect_question

TINY_QUESTION = "The director of Big Stone Gap is based in what New York city?"


@pytest.mark.parametrize("method", ["auto", "hybrid+names+links", "ppr", "hybrid", "bm25"])
def test_the_inspected_top_k_is_what_search_returns(tiny_graph, method):
    shown = inspect_question(tiny_graph, TINY_QUESTION, method, 4)
    searched = tiny_graph.search(TINY_QUESTION, method=method, top=4)
    assert [h["chunk"] for h in shown["answer"]["hits"]] == [h.chunk_id for h in searched.hits]
    assert [h["found_by"] for h in shown["answer"]["hits"]] == [h.found_by for h in searched.hits]
    assert shown["stages"]["method"] == searched.method


def test_the_answer_cites_hits_each_with_its_source_label(tiny_graph):
    shown = inspect_question(tiny_graph, TINY_QUESTION, "hybrid+names+links", None)
    hits = {h["chunk"]: h for h in shown["answer"]["hits"]}
    citations = shown["answer"]["answer"]["citations"]
    assert citations and shown["answer"]["answer"]["writer"] == "extractive"
    for cited in citations:
        assert cited["source"] == hits[cited["chunk"]]["source"]
        assert f"[chunk {cited['chunk']}]" in shown["answer"]["answer"]["text"]


@pytest.mark.parametrize(("question", "mode"), [(TINY_QUESTION, "search"),
                                               ("What are the main themes of this collection?", "global")])
def test_the_inspection_says_which_mode_ask_would_answer_in(tiny_graph, question, mode, monkeypatch):
    from spies import count_calls

    import hopgraph.retrieval.router

    routes = count_calls(monkeypatch, hopgraph.retrieval.router.route)
    shown = inspect_question(tiny_graph, question, "auto", 4)
    assert len(routes) == 1  # the route shown is the one the `auto` search ran
    assert shown["routed_mode"] == mode and shown["stages"]["route"]["kind"] == tiny_graph.route(question).kind
    assert shown["answer"]["mode"] == "search" and shown["stages"]["vector"]  # the stages are a search's


def _static(name: str) -> bytes:
    return resources.files("hopgraph.serve").joinpath("static", name).read_bytes()


def test_the_page_loads_only_its_own_files():
    page = _static("index.html").decode()
    referenced = re.findall(r'(?:src|href)="/static/([^"]+)"', page)
    assert set(referenced) == {"inspector.css", "inspector.js", "documents.js", "vendor/cytoscape.min.js"}
    assert all(_static(name) for name in referenced)
    licence = _static("vendor/cytoscape.LICENSE")
    assert b"MIT" in licence or b"Permission is hereby granted" in licence
    for name in ("index.html", "inspector.js", "documents.js", "inspector.css"):
        assert not re.search(rb"https?://", _static(name)), f"{name} reaches outside the server"


# --- over real HTTP, against the sample store --------------------------------------------------

@pytest.fixture(scope="module")
def inspector_url(tmp_path_factory: pytest.TempPathFactory):
    store = build_sample_store(tmp_path_factory.mktemp("inspector") / "inspector.db")
    with serving(store) as url:
        yield url


def call(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.mark.slow
def test_the_routes_refuse_bad_input_naming_the_problem(inspector_url):
    status, body = call(f"{inspector_url}/api/inspect/chunk/987654")
    assert (status, body["error"]) == (404, "no chunk 987654 in the index")
    status, body = call(f"{inspector_url}/api/inspect/entity/987654")
    assert (status, body["error"]) == (404, "no entity 987654 in the knowledge graph")
    status, body = call(f"{inspector_url}/static/..%2F..%2Fengine.py")
    assert status == 404 and body["error"]  # StaticFiles refuses a path that leaves its folder
    status, body = call(f"{inspector_url}/api/inspect/ask", {"question": QUESTION, "method": "hybrid+magic"})
    assert status == 400 and "unknown method 'hybrid+magic'" in body["error"]
    status, _ = call(f"{inspector_url}/api/inspect/ask", {"question": "x" * 2001})
    assert status == 422
    status, _ = call(f"{inspector_url}/api/inspect/ask", {"question": QUESTION, "top": 0})
    assert status == 422


@pytest.mark.slow
def test_the_neighbourhood_and_the_community_tree_over_http(inspector_url):
    status, found = call(f"{inspector_url}/api/inspect/neighbourhood?question=Who+was+Fulgencio+Batista%3F")
    assert status == 200 and "Fulgencio Batista" in [n["name"] for n in found["nodes"] if n["seed"]]
    ids = {n["id"] for n in found["nodes"]}
    assert found["edges"] and all(e["source"] in ids and e["target"] in ids for e in found["edges"])
    status, tree = call(f"{inspector_url}/api/inspect/community-tree")
    assert status == 200 and tree["levels"] >= 1 and not tree["note"]
    by_id = {c["id"]: c for c in tree["communities"]}
    assert all(by_id[child]["parent"] == c["id"] for c in tree["communities"] for child in c["children"])
    assert all(c["title"] for c in by_id.values())  # the page falls back to it where labels are empty
    assert sum(bool(c["labels"]) for c in by_id.values()) >= 0.8 * len(by_id)


# --- headless chromium -------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason=f"Debian's chromium is not installed at {CHROMIUM} (CI installs it: .ci/run); "
           "Playwright's own browser download is not used")


@contextmanager
def asked_page(url: str) -> Iterator[Any]:
    """The inspector in headless chromium, the sample's two-hop question asked."""
    with inspector_page(url) as page:
        page.fill("#question", QUESTION)
        page.click("#ask")
        yield page


@pytest.mark.slow
@needs_chromium
def test_the_page_shows_the_link_opens_citations_and_draws_the_graph(inspector_url):
    from playwright.sync_api import expect

    linked_from, linked_to, via = LINKED
    with asked_page(inspector_url) as page:
        titled = page.get_by_role("button", name=linked_to, exact=True)  # a chunk's button, not a mention
        link = page.locator("#links tbody tr").filter(has=titled)
        expect(link).to_contain_text(linked_from, timeout=120_000)
        expect(link.locator(".via")).to_have_text(f"“{via}”")
        expect(page.locator("#hits tbody tr").filter(has=titled).locator(".badge")).to_have_text("link")

        # the linked paragraph itself, opened from the link
        _, batista = call(f"{inspector_url}/api/inspect/chunk/{link.locator('.cite').last.get_attribute('data-chunk')}")
        link.locator(".cite").last.click()
        expect(page.locator("#chunk-panel h2")).to_have_text(linked_to)
        expect(page.locator("#chunk-panel .chunk-text")).to_have_text(batista["text"])
        assert batista["title"] == linked_to and "Batista" in batista["text"]
        page.click("#chunk-close")
        expect(page.locator("#chunk-panel")).to_be_hidden()

        # the short answer comes first in the answer box, as text
        expect(page.locator("#answer > :nth-child(2)")).to_have_class("short-answer")
        expect(page.locator("#answer .short-answer strong")).to_have_text("Fulgencio Batista")

        # a citation of the answer opens the chunk it cites
        citation = page.locator("#answer .answer-text .cite").first
        cited = citation.get_attribute("data-chunk")
        _, chunk = call(f"{inspector_url}/api/inspect/chunk/{cited}")
        citation.click()
        expect(page.locator("#chunk-panel h2")).to_have_text(chunk["title"])
        expect(page.locator("#chunk-panel .meta")).to_contain_text(f"chunk {cited}")
        page.click("#chunk-close")

        # the graph view draws the question's neighbourhood; a click on an entity lists its relations
        page.click(".tab[data-view=graph]")
        page.wait_for_selector("#graph[data-nodes]", timeout=60_000)
        assert int(page.get_attribute("#graph", "data-nodes")) > 0
        assert page.evaluate("state.cy.nodes().length") == int(page.get_attribute("#graph", "data-nodes"))
        x, y = page.evaluate("(() => { const p = state.cy.nodes('[?seed]').first().renderedPosition(); "
                             "return [p.x, p.y]; })()")
        box = page.locator("#graph").bounding_box()
        page.mouse.click(box["x"] + x, box["y"] + y)
        expect(page.locator("#entity .relations li").first).to_be_visible()
        expect(page.locator("#entity blockquote").first).not_to_be_empty()

        # the community tree, labelled
        page.click(".tab[data-view=communities]")
        expect(page.locator("#tree .community-label").first).not_to_be_empty()


@pytest.mark.slow
@needs_chromium
def test_the_page_says_the_stages_are_a_search_and_asks_the_routed_mode_on_request(inspector_url):
    from playwright.sync_api import expect

    with asked_page(inspector_url) as page:
        expect(page.locator("#route .routed-mode")).to_have_text(
            "The router sends this question to a search with hybrid+names+links+ppr.", timeout=120_000)
        expect(page.locator("#stages-note")).to_have_text("The answer and stages below are those of the search "
                                                          "with auto:hybrid+names+links+ppr.")
        expect(page.locator("#routed-answer")).to_have_count(0)

        page.fill("#question", "What are the main themes of this collection?")
        page.click("#ask")
        expect(page.locator("#route .routed-mode")).to_have_text(
            "The router sends this question to global mode, not to a search.", timeout=120_000)
        expect(page.locator("#stages-note")).to_contain_text("not how global mode answers it")
        page.click("#routed-answer")
        expect(page.locator("#routed-result h3")).to_have_text("global mode's answer", timeout=120_000)
        expect(page.locator("#routed-result .answer-text")).not_to_be_empty()
        expect(page.locator("#routed-result .answer-text .cite").first).to_be_visible()


@pytest.mark.slow
@needs_chromium
def test_the_placeholder_asks_about_the_open_store_and_hits_show_their_first_words(inspector_url):
    from playwright.sync_api import expect

    _, example = call(f"{inspector_url}/api/inspect/placeholder")
    assert example["question"].startswith("What do the documents say about ")
    with asked_page(inspector_url) as page:
        placeholder = f"Ask a question, e.g. {example['question']}"
        expect(page.locator("#question")).to_have_attribute("placeholder", placeholder)
        first_row = page.locator("#hits tbody tr").first
        expect(first_row).to_be_visible(timeout=120_000)
        chunk_id = first_row.locator(".cite").first.get_attribute("data-chunk")
        _, chunk = call(f"{inspector_url}/api/inspect/chunk/{chunk_id}")
        words = chunk["text"].split()
        begins = " ".join(words[:10]) + (" …" if len(words) > 10 else "")
        expect(first_row.locator(".first-words")).to_have_text(begins)


@pytest.mark.slow
@needs_chromium
def test_the_walk_tab_draws_the_names_followed_to_the_linked_chunk(inspector_url):
    from playwright.sync_api import expect

    linked_from, linked_to, via = LINKED
    with asked_page(inspector_url) as page:
        expect(page.locator("#hits tbody tr").first).to_be_visible(timeout=120_000)
        page.click(".tab[data-view=walk]")
        page.wait_for_selector("#walk[data-nodes]", timeout=60_000)
        drawn = page.evaluate("state.walkCy.nodes().map((n) => [n.id(), n.data('kind'), n.data('label')])")
        kinds = {node_id: kind for node_id, kind, _ in drawn}
        labels = {node_id: label for node_id, _, label in drawn}
        assert kinds["question"] == "question" and "seed" in kinds.values()
        name = f"name:{via.casefold()}"
        assert kinds[name] == "name"
        target = next(n for n, label in labels.items() if kinds[n] == "linked" and label.startswith(linked_to))
        edges = set(map(tuple, page.evaluate("state.walkCy.edges().map((e) => [e.source().id(), e.target().id()])")))
        assert (name, target) in edges
        # the chunk that named it (a PPR hit may follow the same name on from the linked chunk too)
        assert any(labels[source].startswith(linked_from) for source, to in edges if to == name)
        expect(page.locator("#walk-note")).to_contain_text("name(s) followed")
