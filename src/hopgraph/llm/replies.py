"""A chat request's body, and its reply off the wire: read piece by piece as it streams
(server-sent events), or put back into the one JSON body a non-streaming server sends, so the client
reads both the same way; the text inside it without Markdown fences; its tokens; and how long a
busy server asks to be left alone (Retry-After).

Streaming is what lets the client tell a silent server from a slow one: the first piece comes in
seconds even when the whole reply takes a minute (llm/client.py's first-byte limit).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pydantic

from hopgraph.text.tokens import count_tokens

RETRY_AFTER_CAP = 30.0  # seconds: a server asking for longer is treated as asking for this
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def chat_body(model: str, messages: list[dict[str, Any]], response_model: type[pydantic.BaseModel] | None,
              max_tokens: int, temperature: float, json_object_only: bool) -> dict[str, Any]:
    """A chat-completions request; a response model is asked for as a JSON schema, or, from a
    server that rejected that (`json_object_only`), as a JSON object with the schema in the prompt."""
    body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens,
                            "temperature": temperature}
    if response_model is None:
        return body
    schema = response_model.model_json_schema()
    if json_object_only:
        # json_object mode constrains only the syntax: the schema has to travel in the prompt
        # (OpenAI also insists that the word JSON appears in the messages).
        hint = f"Reply with one JSON object that matches this JSON Schema:\n{json.dumps(schema)}"
        body["messages"] = [*messages, {"role": "system", "content": hint}]
        body["response_format"] = {"type": "json_object"}
    else:
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": response_model.__name__, "schema": schema, "strict": True}}
    return body


class StreamProblem(Exception):
    """The stream broke its promise: a malformed event, or a reply past its time."""


@dataclass
class Streamed:
    """What a reply said besides its text, filled in as it streams."""

    finish: str = ""
    usage: dict[str, Any] = field(default_factory=dict)


def reply_body(response: httpx.Response, ends_at: float, whole_limit: float) -> str:
    """The reply as a JSON chat-completion body. A server that ignored `stream` sent that body
    already; a stream is given up on past `ends_at` however steadily it flows."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        response.read()
        return response.text
    said = Streamed()
    text = "".join(reply_pieces(response, ends_at, whole_limit, said))
    return json.dumps({"choices": [{"message": {"content": text}, "finish_reason": said.finish}],
                       "usage": said.usage})


def reply_pieces(response: httpx.Response, ends_at: float, whole_limit: float, said: Streamed) -> Iterator[str]:
    """The reply's text in the pieces it arrives in (none empty), its finish reason and usage put in
    `said`; a server that ignored `stream` sends its whole text as one piece."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        yield from _whole(response, said)
        return
    for line in response.iter_lines():
        if time.monotonic() > ends_at:
            raise StreamProblem(f"the reply took longer than {whole_limit:g} s (setting llm_timeout)")
        data = line.removeprefix("data:").strip() if line.startswith("data:") else ""
        if not data or data == "[DONE]":
            continue
        piece, said.finish, said.usage = _event(data, said.finish, said.usage)
        if piece:
            yield piece


def _whole(response: httpx.Response, said: Streamed) -> Iterator[str]:
    text = parse_body(response.read().decode(response.encoding or "utf-8", errors="replace"), said)
    if text:
        yield text


def parse_body(raw: str, said: Streamed) -> str:
    """A whole chat-completion body's text; its finish reason and usage put in `said`."""
    try:
        payload = json.loads(raw)
        text = payload["choices"][0]["message"]["content"]
        said.finish = str(payload["choices"][0].get("finish_reason") or "")
        said.usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    except (ValueError, KeyError, IndexError, TypeError) as err:
        raise StreamProblem(f"malformed reply body ({type(err).__name__}: {err}): {raw[:200]!r}") from None
    return text if isinstance(text, str) else ""


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


def tokens_used(usage: dict[str, Any], messages: list[dict[str, Any]], text: str) -> tuple[int, int]:
    """The tokens in and out the server's usage says; some servers omit it: counted then as every
    budget here is counted."""
    tokens_in, tokens_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(tokens_in, int):
        tokens_in = sum(count_tokens(str(message.get("content", ""))) for message in messages)
    if not isinstance(tokens_out, int):
        tokens_out = count_tokens(text)
    return tokens_in, tokens_out
