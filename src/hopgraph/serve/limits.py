"""How much a request may carry: the body of any request, an upload, a document's text (a question's
length is query/question.MAX_QUESTION_CHARS).

A body over its limit is refused with 413 before it is read whole: a declared `Content-Length` is
checked first, and a body sent without one (chunked) is counted as it arrives (`BodyLimit`).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hopgraph.serve.errors import ApiError, error_response

MB = 1024 * 1024
TITLE_CHARS = 500
TEXT_CHARS = 1 * MB  # a text document sent as JSON (a bigger one goes as an upload)


@dataclass(frozen=True)
class Limits:
    body_bytes: int = 2 * MB  # any request but an upload (a question; a text document: TEXT_CHARS, escaped)
    upload_bytes: int = 20 * MB  # a multipart request to POST /documents (one file)

    def for_request(self, method: str, path: str, content_type: bytes) -> int:
        """The body limit of a request: uploads (multipart, to POST /documents) may be larger."""
        upload = method == "POST" and path == "/documents" and content_type.startswith(b"multipart/")
        return self.upload_bytes if upload else self.body_bytes


def too_large(limit: int) -> ApiError:
    return ApiError(413, f"the request body is over the limit of {limit:,} bytes")


class BodyLimit:
    """ASGI middleware: 413 for a body over `Limits.for_request`, declared or counted."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app, self.limits = app, limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        limit = self.limits.for_request(scope["method"], scope["path"], headers.get(b"content-type", b""))
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _refuse(scope, receive, send, limit)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:  # raised inside the route's body parsing: the error handlers answer 413
                raise too_large(limit)
            return message

        await self.app(scope, counted, send)


async def _refuse(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    await error_response(too_large(limit), scope["path"])(scope, receive, send)
