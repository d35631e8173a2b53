"""The API's routers, one module per resource: questions (ask), documents, the knowledge graph
(entities, paths, communities) and health. Each route is a plain function over the SharedGraph
(shared_graph.py), reading on its reader or writing on its writer."""

from __future__ import annotations

import json
from email.message import Message
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from hopgraph.serve.errors import ApiError


class JsonResult(JSONResponse):
    """hopgraph's own records as JSON, the way `--json` prints them (anything else as its string)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, default=str).encode("utf-8")


def is_json(content_type: str) -> bool:
    """application/json or application/…+json, with any parameters (charset)."""
    parsed = Message()
    parsed["content-type"] = content_type
    subtype = parsed.get_content_subtype()
    return parsed.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


def require_json(request: Request) -> None:
    """A dependency of every route whose body is JSON: any other content type is 415, not a 422
    about the body's shape (FastAPI would hand the model the raw bytes). Dependencies are solved
    before the body is validated, so this answers first."""
    if not is_json(request.headers.get("content-type", "")):
        raise ApiError(415, "send the body as JSON, with `Content-Type: application/json`")
