"""OpenAI's chat wire shapes, as `hopgraph serve` speaks them under /v1/ (routes/chat.py).

- **Models** are the answer modes (query/modes/, so a plugin's mode is one too): `hopgraph` is
  `auto`, `hopgraph-<mode>` every other mode (`hopgraph-search`, `hopgraph-global`, …).
- **A request** (`ChatRequest`) is strict about what hopgraph reads — `model` (a string),
  `messages` (a non-empty list of `{role, content}`, content a string or a list of parts whose
  `text` parts are read), `stream` and `stream_options.include_usage` (booleans), `n` (1 only) —
  and accepts every other field an OpenAI client sends (temperature, top_p, max_tokens,
  max_completion_tokens, stop, seed, user, tools, response_format, …) and ignores it: the answer is
  retrieved and written the same way whatever they say.
- **A reply** is a `chat.completion` (or its `chat.completion.chunk`s) whose `usage` counts the LLM
  tokens the question spent (0 without an LLM); the extra key `hopgraph` carries what the answer
  came from (routes/chat.py says which fields).
- **An error** is `{"error": {"message", "type", "param", "code"}}`.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hopgraph.query.modes import mode_names

PREFIX = "/v1/"
MODEL = "hopgraph"  # the `auto` mode: the router picks
OWNER = "hopgraph"
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 409: "conflict_error", 413: "invalid_request_error",
               415: "invalid_request_error", 422: "invalid_request_error", 503: "service_unavailable"}


def is_openai_path(path: str) -> bool:
    return path.startswith(PREFIX)


def error_body(status: int, message: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error object: a client raises its error class for the status with this message."""
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


# --- models ---------------------------------------------------------------------------------------


def model_name(mode: str) -> str:
    return MODEL if mode == "auto" else f"{MODEL}-{mode}"


def model_names() -> tuple[str, ...]:
    """One model per answer mode, in the registry's order."""
    return tuple(model_name(mode) for mode in mode_names())


def mode_of(model: str) -> str | None:
    """The mode a model name selects; None for a model hopgraph does not serve."""
    return {model_name(mode): mode for mode in mode_names()}.get(model)


def model_card(name: str, created: int) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": created, "owned_by": OWNER}


# --- requests -------------------------------------------------------------------------------------


class ContentPart(BaseModel):
    """One part of a message's content; only `text` parts are read (an image is not a question)."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)  # name, tool_calls, …: accepted, unread

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "\n".join(part.text for part in self.content if part.type == "text" and part.text)
        return self.content or ""


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    include_usage: bool = False


class ChatRequest(BaseModel):
    """What hopgraph reads of a chat completion request; any other field is accepted and ignored."""

    model_config = ConfigDict(extra="allow", strict=True)

    model: str = Field(min_length=1, max_length=200, description="The answer mode: `hopgraph` (auto) or "
                       "`hopgraph-<mode>` (`hopgraph-search`, …; GET /v1/models lists them).")
    messages: list[ChatMessage] = Field(min_length=1, description="The last `user` message is the question; "
                                        "the others are not read (hopgraph answers one question at a time).")
    stream: bool = Field(default=False, description="Server-sent `chat.completion.chunk` events, then "
                         "`data: [DONE]`.")
    stream_options: StreamOptions | None = Field(default=None, description="`include_usage`: a last chunk "
                                                 "with the usage and no choices.")
    n: int = Field(default=1, ge=1, le=1, description="One answer per question.")

    def question(self) -> str | None:
        """The last user message's text; None when there is no user message."""
        asked = [message for message in self.messages if message.role == "user"]
        return asked[-1].text() if asked else None

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)


# --- replies --------------------------------------------------------------------------------------


class Reply:
    """One reply's identity, shared by the completion or by every chunk of its stream."""

    def __init__(self, model: str) -> None:
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.model = model

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model,
                "system_fingerprint": None}

    def completion(self, content: str, usage: dict[str, int], extra: dict[str, Any]) -> dict[str, Any]:
        choice = {"index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
                  "logprobs": None, "finish_reason": "stop"}
        return {**self._head("chat.completion"), "choices": [choice], "usage": usage, MODEL: extra}

    def chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**self._head("chat.completion.chunk"), "choices": [choice], **extra}

    def usage_chunk(self, usage: dict[str, int]) -> dict[str, Any]:
        """`stream_options.include_usage`: the last chunk, with the usage and no choices."""
        return {**self._head("chat.completion.chunk"), "choices": [], "usage": usage}


def usage(used: dict[str, Any]) -> dict[str, int]:
    """OpenAI's usage from an answer's `used` (records/answers.Spend): the LLM tokens the question spent."""
    prompt, completion = int(used.get("tokens_in", 0)), int(used.get("tokens_out", 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
