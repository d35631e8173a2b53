"""Every failure as JSON `{"error": message}` with its status.

- 400: hopgraph refused the input (an InputError: a bad method, date or follow spec), or the body
  is not JSON at all;
- 401: a missing or wrong token (security.py); 404: an unknown id, entity or route;
- 413: a body over its limit (limits.py); 415: a JSON route's body sent as anything but JSON;
- 422: JSON of the wrong shape or types (pydantic, strict: a value of the wrong JSON type is not coerced);
- 503: the store is busy or gone (another writer holds it past the lock timeout, its server is down);
- 500: a bug in hopgraph, logged with its traceback, answered without one.

Under /v1/ (the OpenAI-compatible chat API, routes/chat.py) the same failures take OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}` (openai_wire.error_body), so an OpenAI client
raises its own error class with the message.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from hopgraph.errors import HopgraphError
from hopgraph.serve.openai_wire import error_body, is_openai_path
from hopgraph.store import database_errors

log = logging.getLogger("hopgraph.serve")


class ApiError(HTTPException):
    """An answer other than 200 with a message for the client (FastAPI passes these through body
    parsing untouched, which is how limits.BodyLimit can refuse a body as it arrives)."""

    def __init__(self, status: int, message: str, code: str | None = None, param: str | None = None) -> None:
        super().__init__(status_code=status, detail=message)
        self.code, self.param = code, param  # OpenAI's error fields, for the /v1/ routes


def error_response(error: HTTPException, path: str = "") -> JSONResponse:
    code, param = getattr(error, "code", None), getattr(error, "param", None)
    return _error(path, error.status_code, str(error.detail), error.headers, code, param)


def _error(path: str, status: int, message: str, headers: dict[str, str] | None = None,
           code: str | None = None, param: str | None = None) -> JSONResponse:
    """`{"error": message}`, or OpenAI's error object under /v1/."""
    body = error_body(status, message, code, param) if is_openai_path(path) else {"error": message}
    return JSONResponse(body, status_code=status, headers=headers)


def _validation_message(error: RequestValidationError) -> tuple[int, str]:
    problems = error.errors()
    if any(p.get("type") == "json_invalid" for p in problems):
        return 400, "the body is not valid JSON"
    said = [f"{'.'.join(str(part) for part in p.get('loc', ()))}: {p.get('msg', 'invalid')}" for p in problems[:5]]
    return 422, "; ".join(said)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return error_response(error, request.url.path)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        status, message = _validation_message(error)
        return _error(request.url.path, status, message)

    @app.exception_handler(HopgraphError)
    async def refused(request: Request, error: HopgraphError) -> JSONResponse:
        return _error(request.url.path, 400, " ".join(str(error).split()))

    for kind in database_errors():
        @app.exception_handler(kind)
        async def store_unavailable(request: Request, error: Exception) -> JSONResponse:
            return _error(request.url.path, 503, f"the store: {error}")

    @app.exception_handler(Exception)
    async def bug(request: Request, error: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, request.url.path, exc_info=error)
        return _error(request.url.path, 500, f"internal error ({type(error).__name__}); see the server's log")
