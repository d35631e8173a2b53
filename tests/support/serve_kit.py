"""Running `hopgraph serve` as a user would: the CLI in a subprocess on a free port, waited for
until /health answers; and the small store it serves, built from the bundled HotpotQA sample.
Used by tests/serve and bench/serve_load.py; `timed_stream` reads POST /ask's server-sent events."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from testkit import REPO

from hopgraph.cli.demo import sample_path
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.eval.questions import pooled_corpus

SAMPLE_RECORDS = 6  # 60 paragraphs of the sample, with their names, links and no-LLM graph
STARTUP_SECONDS = 180  # the model and spaCy load on a busy machine


def clean_env() -> dict[str, str]:
    """This environment without HOPGRAPH_* settings, with this checkout's code first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOPGRAPH_")}
    return env | {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))}


def build_sample_store(path: Path, records: int = SAMPLE_RECORDS) -> Path:
    """The first `records` of the bundled sample, indexed with the real embedder (the one the server
    loads) and their no-LLM knowledge graph."""
    docs = pooled_corpus(json.loads(sample_path().read_text(encoding="utf-8"))[:records], "sample")
    with HopGraph(str(path), Settings(), quiet=True) as hg:
        hg.index_documents(docs)
        hg.extract_without_llm()
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_server(store: Path, host: str = "127.0.0.1", token: str | None = None,
                   cwd: Path | None = None, settings: dict[str, str] | None = None) -> Iterator[str]:
    """`hopgraph serve --store STORE --host HOST --port P`, with `settings` as HOPGRAPH_* variables
    ({"llm_url": …}); yields the base URL (always over 127.0.0.1) once /health answers, and stops
    the server afterwards."""
    port = free_port()
    env = clean_env() | {f"HOPGRAPH_{name.upper()}": value for name, value in (settings or {}).items()}
    if token:
        env["HOPGRAPH_TOKEN"] = token
    command = [sys.executable, "-m", "hopgraph.cli.app", "serve", "--store", str(store), "--host", host,
               "--port", str(port), "--quiet"]
    log = (cwd or store.parent) / f"serve-{port}.log"
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=cwd or store.parent, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for_health(server, base, log)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_for_health(server: subprocess.Popen, base: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"hopgraph serve exited with {server.returncode}: {log.read_text()}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"hopgraph serve did not answer /health in {STARTUP_SECONDS} s: {log.read_text()}")


def cli_json(*args: str) -> object:
    """What `hopgraph ARGS --json` prints, run as the installed module (the answer to compare with)."""
    done = subprocess.run([sys.executable, "-m", "hopgraph.cli.app", *args, "--json", "--quiet"], env=clean_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def without_timings(answer: dict[str, Any]) -> dict[str, Any]:
    """An `Answer.to_json()` with the seconds and milliseconds of its stages taken out."""
    stable = {**answer, "used": {k: v for k, v in answer["used"].items() if k != "seconds"}}
    if answer["retrieval"] is not None:
        retrieval = answer["retrieval"]
        stable["retrieval"] = {**retrieval, "ms": None,
                               "trace": [{**step, "ms": None} for step in retrieval["trace"]]}
    return stable


def timed_stream(server: str, stop_after: str | None = None, **body) -> list[tuple[str, Any, float]]:
    """The events as they arrive, (name, data — JSON, or the text of a `token` —, when it came);
    with `stop_after`, the connection is closed once an event of that name came."""
    events = []
    with httpx.stream("POST", f"{server}/ask", json={**body, "stream": True}, timeout=120) as answered:
        assert answered.status_code == 200 and answered.headers["content-type"].startswith("text/event-stream")
        name, data = "message", []
        for line in answered.iter_lines():
            if line == "" and data:  # an event ends at a blank line
                text = "\n".join(data)
                events.append((name, text if name == "token" else json.loads(text), time.monotonic()))
                if name == stop_after:
                    break
                name, data = "message", []
            elif not line.startswith(":") and line:
                key, _, value = line.partition(":")
                value = value.removeprefix(" ")  # SSE drops one space after the colon
                name, data = (value, data) if key == "event" else (name, [*data, value])
    return events
