"""The inspector outside `hopgraph serve`, for its browser test and its screenshots: a store of a few
bundled HotpotQA records with their knowledge graph, a minimal app around the inspector router
(`hopgraph serve` builds the real one), that app served on 127.0.0.1 in a subprocess, and Debian's
chromium as Playwright must launch it here (never Playwright's own browser download).

`python tests/support/inspector_app.py STORE PORT` serves STORE on 127.0.0.1:PORT."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from hopgraph.config import Settings, load_settings
from hopgraph.engine import HopGraph
from hopgraph.records.documents import Document
from hopgraph.serve.app import create_app

# Records 3-6 of the bundled sample: two bridge questions whose second paragraph a link finds.
SAMPLE_RECORDS = slice(3, 7)
QUESTION = "What Cuban preisdent overthrew Mary Tarrero-Serrano?"  # the sample's spelling
LINKED = ("Mary Tarrero-Serrano", "Fulgencio Batista", "Fulgencio Batista")  # from, to, via name
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def inspector_page(url: str) -> Iterator[Any]:
    """The inspector at `url` open in headless Debian chromium (never Playwright's own download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url + "/")
        yield page
        browser.close()


def build_sample_store(path: Path) -> Path:
    """The records' paragraphs indexed with the bundled embedder, their no-LLM knowledge graph, its
    communities and extractive reports (with labels)."""
    from hopgraph.cli.demo import sample_path

    records = json.loads(sample_path().read_text(encoding="utf-8"))[SAMPLE_RECORDS]
    documents = {title: Document(title, "".join(sentences), "hotpotqa")
                 for record in records for title, sentences in record["context"]}
    with HopGraph(str(path), Settings()) as hg:
        hg.index_documents(list(documents.values()))
        hg.extract_without_llm()
        hg.reports(use_llm=False)
    return path


def inspector_app(store: str) -> FastAPI:
    """The app `hopgraph serve` runs over the store: the API and the inspector at `/`."""
    return create_app(store, load_settings())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(store: Path, wait: float = 60.0) -> Iterator[str]:
    """This file run as a server over `store`; yields its base URL once the page answers."""
    port = free_port()
    server = subprocess.Popen([sys.executable, __file__, str(store), str(port)])
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the inspector server did not start on {url}") from None
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(inspector_app(sys.argv[1]), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
