"""A real OpenAI-compatible server on 127.0.0.1 that streams its replies as server-sent events, a
piece at a time with small sleeps, as a local model writes; it records each request and when its
client closed the connection mid-reply (what "the generation stops" looks like from the model's side).

`pieces(body)` decides a reply's pieces from the request; `first_delay` holds back the first byte,
`stall_after` goes silent after that many pieces. The fixture `streaming_llm` serves one per test module.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from fake_llm import serving_handler

Pieces = Callable[[dict[str, Any]], list[str]]


def words(text: str) -> Pieces:
    """Every reply is `text`, a word (with the space before it) per piece."""
    split = [("" if number == 0 else " ") + word for number, word in enumerate(text.split(" "))]
    return lambda body: split


def json_answer(answer: str, also_cite: tuple[int, ...] = (), size: int = 4) -> Pieces:
    """Every reply is the answer prompt's JSON, `answer` citing the first chunk the prompt gives
    (and `also_cite`), in pieces of `size` characters."""

    def pieces(body: dict[str, Any]) -> list[str]:
        given = re.findall(r"\[chunk (\d+)\]", body["messages"][-1]["content"])
        text = json.dumps({"answer": answer, "citations": [int(given[0]), *also_cite]})
        return [text[start:start + size] for start in range(0, len(text), size)]

    return pieces


class StreamingLLM:
    def __init__(self) -> None:
        self.reset()

    def reset(self, pieces: Pieces | None = None, gap: float = 0.02, first_delay: float = 0.0,
              stall_after: int | None = None, stall: float = 30.0, usage: bool = True) -> None:
        self.pieces = pieces or words("Hosur is where the foundry casts brake drums")
        self.gap, self.first_delay, self.usage = gap, first_delay, usage
        self.stall_after, self.stall = stall_after, stall
        self.bodies: list[dict[str, Any]] = []
        self.sent = 0  # pieces written, over all replies
        self.completed = threading.Event()  # a reply was written to its end
        self.disconnected = threading.Event()  # a client went away before its reply ended

    def reply(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        self.bodies.append(body)
        time.sleep(self.first_delay)
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        pieces = self.pieces(body)
        try:
            for number, piece in enumerate(pieces):
                if number == self.stall_after:
                    time.sleep(self.stall)
                self._send(handler, {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                self.sent += 1
                time.sleep(self.gap)
            self._send(handler, {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if self.usage and (body.get("stream_options") or {}).get("include_usage"):
                self._send(handler, {"choices": [], "usage": {"prompt_tokens": 42, "completion_tokens": len(pieces)}})
            handler.wfile.write(b"data: [DONE]\n\n")
            handler.wfile.flush()
            self.completed.set()
        except OSError:  # BrokenPipe / ConnectionReset: the client closed the connection
            self.disconnected.set()

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, event: dict[str, Any]) -> None:
        handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        handler.wfile.flush()


def make_handler(llm: StreamingLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            llm.reply(self, json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0)))))

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serving(llm: StreamingLLM) -> Iterator[str]:
    """Serve `llm` on a free 127.0.0.1 port; yields the /v1 base URL."""
    with serving_handler(make_handler(llm)) as url:
        yield url


@pytest.fixture(scope="module")
def streaming_server() -> Iterator[tuple[StreamingLLM, str]]:
    llm = StreamingLLM()
    with serving(llm) as url:
        yield llm, url


@pytest.fixture
def streaming_llm(streaming_server: tuple[StreamingLLM, str]) -> tuple[StreamingLLM, str]:
    streaming_server[0].reset()
    return streaming_server
