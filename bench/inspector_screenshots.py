"""The inspector's screenshots in docs/ (README, "Inspector"): the stages of the sample's two-hop
question, the name-link graph its search walked, the knowledge graph around it and the documents
view (what the store holds), taken in headless Debian chromium.

    python bench/inspector_screenshots.py [--store PATH]

Without --store it builds the small sample store of the inspector's browser test (a minute)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from inspector_app import CHROMIUM, CHROMIUM_ARGS, QUESTION, build_sample_store, serving  # noqa: E402


def take(url: str, docs: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1500})
        page.goto(url + "/")
        page.fill("#question", QUESTION)
        page.click("#ask")
        page.wait_for_selector("#links td")
        page.screenshot(path=str(docs / "inspector.png"), full_page=True)
        page.set_viewport_size({"width": 1440, "height": 900})
        page.click(".tab[data-view=walk]")
        page.wait_for_selector("#walk[data-nodes]")
        page.screenshot(path=str(docs / "inspector-walk.png"))
        page.click(".tab[data-view=graph]")
        click_seed(page)
        page.wait_for_selector("#entity .relations li")
        page.screenshot(path=str(docs / "inspector-graph.png"))
        page.click(".tab[data-view=documents]")
        page.wait_for_selector("#documents-table tbody tr")
        page.screenshot(path=str(docs / "inspector-documents.png"))
        browser.close()


def click_seed(page: Page) -> None:
    """Click the first entity the question names, where cytoscape drew it (a canvas has no elements)."""
    page.wait_for_selector("#graph[data-nodes]")
    x, y = page.evaluate("(() => { const p = state.cy.nodes('[?seed]').first().renderedPosition(); "
                         "return [p.x, p.y]; })()")
    box = page.locator("#graph").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="a store to show (default: build the small sample store)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        store = args.store or build_sample_store(Path(scratch) / "inspector.db")
        with serving(store) as url:
            take(url, ROOT / "docs")
    print("wrote docs/inspector.png, inspector-walk.png, inspector-graph.png and inspector-documents.png")


if __name__ == "__main__":
    main()
