"""A real OpenAI-compatible HTTP server on 127.0.0.1 that plays scripted chat-completions replies.

Every LLM-path test talks to it through the real client (httpx, retries, JSON validation); the
fixtures `fake` (the script, reset per test) and `make_client` are registered in conftest.py.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pydantic
import pytest

from hopgraph.llm import LLMClient


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict → JSON; str → sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def chat(content: str, usage: dict[str, int] | None = None) -> Reply:
    body: dict[str, Any] = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    if usage is not None:
        body["usage"] = usage
    return Reply(body=body)


class FakeLLM:
    """Scripted replies (a queue, else `responder`), every request recorded, and peak concurrency."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.script: deque[Reply] = deque()
            self.responder: Callable[[dict[str, Any]], Reply] | None = None
            self.requests: list[dict[str, Any]] = []
            self.in_flight = 0
            self.max_in_flight = 0

    def next_reply(self, request: dict[str, Any]) -> Reply:
        with self.lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.script:
                return self.script.popleft()
        return self.responder(request) if self.responder else Reply(500, "script exhausted")

    def done(self) -> None:
        with self.lock:
            self.in_flight -= 1

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [request["body"] for request in self.requests]


def make_handler(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            request = {"path": self.path, "headers": dict(self.headers), "body": json.loads(raw)}
            reply = fake.next_reply(request)
            try:
                time.sleep(reply.delay)
            finally:
                # Counted out before the reply is sent: once the client has the reply it may send the
                # next request at once, and that must not be seen as one more in flight.
                fake.done()
            try:
                data = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body)).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up (timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def dead_url() -> str:
    """A local port nothing listens on: any request to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@contextmanager
def serving(fake: FakeLLM) -> Iterator[str]:
    """Serve `fake` on a free 127.0.0.1 port for the duration; yields the /v1 base URL."""
    with serving_handler(make_handler(fake)) as url:
        yield url


@contextmanager
def serving_handler(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve `handler` on a free 127.0.0.1 port, one thread per request; yields the /v1 base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True  # a stalled reply must not hold the test run at exit
    httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[FakeLLM, str]]:
    fake = FakeLLM()
    with serving(fake) as url:
        yield fake, url


@pytest.fixture
def fake(server: tuple[FakeLLM, str]) -> FakeLLM:
    server[0].reset()
    return server[0]


@pytest.fixture
def make_client(server: tuple[FakeLLM, str]) -> Iterator[Callable[..., LLMClient]]:
    clients: list[LLMClient] = []

    def make(**options: Any) -> LLMClient:
        options = {"model": "qwen-test", "max_retries": 3, "backoff": 0.01, "timeout": 5.0, **options}
        client = LLMClient(server[1], **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@contextmanager
def silent_url() -> Iterator[str]:
    """A port on 127.0.0.1 whose connections are accepted (the kernel completes them) and never
    answered: a model server that hangs."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"


# --- one scripted fact, shared by the client tests --------------------------------------------------


class Fact(pydantic.BaseModel):
    subject: str
    relation: str
    target: str


GOOD = {"subject": "Acme", "relation": "SUPPLIES", "target": "Globex"}
MESSAGES = [{"role": "system", "content": "Extract one fact as JSON."},
            {"role": "user", "content": "Acme supplies Globex with widgets."}]


def good(**usage: int) -> Reply:
    return chat(json.dumps(GOOD), usage or {"prompt_tokens": 50, "completion_tokens": 10})
