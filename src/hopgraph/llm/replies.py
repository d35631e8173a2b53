"""A chat reply off the wire: read as it streams (server-sent events) and put back into the one JSON
body a non-streaming server sends, so the client reads both the same way; the text inside it without
Markdown fences; and how long a busy server asks to be left alone (Retry-After).

Streaming is what lets the client tell a silent server from a slow one: the first piece comes in
seconds even when the whole reply takes a minute (llm/client.py's first-byte limit).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx

RETRY_AFTER_CAP = 30.0  # seconds: a server asking for longer is treated as asking for this
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class StreamProblem(Exception):
    """The stream broke its promise: a malformed event, or a reply past its time."""


def reply_body(response: httpx.Response, ends_at: float, whole_limit: float) -> str:
    """The reply as a JSON chat-completion body. A server that ignored `stream` sent that body
    already; a stream is given up on past `ends_at` however steadily it flows."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        response.read()
        return response.text
    pieces: list[str] = []
    finish, usage = "", {}
    for line in response.iter_lines():
        if time.monotonic() > ends_at:
            raise StreamProblem(f"the reply took longer than {whole_limit:g} s (setting llm_timeout)")
        data = line.removeprefix("data:").strip() if line.startswith("data:") else ""
        if not data or data == "[DONE]":
            continue
        piece, finish, usage = _event(data, finish, usage)
        pieces.append(piece)
    return json.dumps({"choices": [{"message": {"content": "".join(pieces)}, "finish_reason": finish}],
                       "usage": usage})


def _event(data: str, finish: str, usage: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """One event's piece of text, and the finish reason and usage so far."""
    try:
        event = json.loads(data)
        choice = (event.get("choices") or [{}])[0]
        piece = (choice.get("delta") or {}).get("content") or ""
        return piece, str(choice.get("finish_reason") or finish), event.get("usage") or usage
    except (ValueError, AttributeError, TypeError) as err:
        raise StreamProblem(f"malformed reply event ({type(err).__name__}: {err}): {data[:200]!r}") from None


def strip_fences(text: str) -> str:
    """Models often wrap JSON in ```json … ``` even when asked not to."""
    match = _FENCE.match(text)
    return match.group(1).strip() if match else text.strip()


def retry_after(response: httpx.Response) -> float | None:
    try:
        return min(max(float(response.headers["Retry-After"]), 0.0), RETRY_AFTER_CAP)
    except (KeyError, ValueError):  # absent, or an HTTP date: fall back to our own backoff
        return None
