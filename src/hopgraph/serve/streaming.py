"""Server-sent events (sse-starlette's `EventSourceResponse`: it formats the events, pings an idle
stream so proxies keep it open, and stops the stream when its client goes away), and an answer's
text cut into the deltas a stream sends."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent

from hopgraph.errors import HopgraphError

log = logging.getLogger("hopgraph.serve")
PING_SECONDS = 15  # a comment line on a stream with nothing to send (an LLM still writing)
DELTA_WORDS = 8  # words per delta of an answer written whole
SEP = "\n"  # between an event's lines (SSE allows \r\n too; \n is what OpenAI's stream sends)


def event_stream(events: AsyncIterator[ServerSentEvent]) -> EventSourceResponse:
    return EventSourceResponse(events, ping=PING_SECONDS, sep=SEP, headers={"Cache-Control": "no-cache"})


def event(data: dict[str, Any] | str, name: str | None = None) -> ServerSentEvent:
    """One event; a dict is sent as JSON."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return ServerSentEvent(text, event=name, sep=SEP)


def deltas(text: str, words: int = DELTA_WORDS) -> list[str]:
    """The text in pieces of `words` words, each with the whitespace before it: joined, they are the
    text (less trailing whitespace)."""
    pieces = re.findall(r"\s*\S+", text)
    return ["".join(pieces[start:start + words]) for start in range(0, len(pieces), words)]


def failure(error: Exception, where: str) -> tuple[int, str]:
    """A failure after a stream began (its status is sent already), as the status and message the
    error handlers would have answered with; a bug is logged with its traceback."""
    if isinstance(error, HopgraphError):
        return 400, " ".join(str(error).split())
    log.exception("%s failed mid-stream", where, exc_info=error)
    return 500, f"internal error ({type(error).__name__}); see the server's log"
