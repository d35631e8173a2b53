"""The token rule: a server reachable from other machines must be asked with a token.

Bound to a loopback address (127.0.0.1, localhost, ::1) the API is open to this machine only and
needs no token; bound to anything else it refuses to start without one (`--token` or
HOPGRAPH_TOKEN). With a token, every request but GET /health — the API, /docs, /openapi.json, the
inspector's page and its static files, unknown paths — must carry it, checked by `TokenGuard`
before routing and before any body is read (so a malformed body without a token is 401, not 400):

- `Authorization: Bearer <token>` (API clients, /docs' "Authorize"), or
- the session cookie a browser gets by opening `/?token=<token>` once: HttpOnly (the page's
  scripts never hold the token), SameSite=Strict (no other site can send it), for the browser
  session; its value is an HMAC of the token, not the token itself.

Both are compared in constant time (hmac.compare_digest), so the comparison's duration tells nothing.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlencode

from fastapi.security import HTTPBearer
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from hopgraph.errors import HopgraphError
from hopgraph.serve.errors import ApiError, error_response

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_ENV = "HOPGRAPH_TOKEN"
OPEN_PATHS = frozenset({"/health"})  # a load balancer's probe: says nothing about the store
COOKIE = "hopgraph_session"
# Declared on the API's routes for OpenAPI only, so /docs offers "Authorize"; TokenGuard decides.
BEARER = HTTPBearer(auto_error=False)


def usable_token(token: str | None) -> str | None:
    """The token without surrounding whitespace (a token read from a file ends in a newline); one
    that is empty or only whitespace is a mistake, refused rather than served open."""
    if token is None:
        return None
    if not token.strip():
        raise HopgraphError(f"the token is empty or only whitespace: give --token or {TOKEN_ENV} a real value "
                            f"(or leave both unset to serve 127.0.0.1 without one)")
    return token.strip()


def check_binding(host: str, token: str | None) -> None:
    """Refuse to serve a non-loopback address without a token."""
    if host.strip("[]").lower() not in LOOPBACK and not token:
        raise HopgraphError(f"serving on {host} makes the store reachable from other machines: give a token "
                            f"with --token or {TOKEN_ENV} (or bind 127.0.0.1)")


def session_value(token: str) -> str:
    """What the browser's cookie holds: derived from the token, so the cookie jar never holds it."""
    return hmac.new(token.encode(), b"hopgraph inspector session", hashlib.sha256).hexdigest()


class TokenGuard:
    """ASGI middleware: with a token, every HTTP request but /health needs it (header or cookie);
    `/?token=<token>` sets the cookie and sends the browser on to the page without the token in
    its address. Without a token it lets everything through."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.expected = token.encode() if token else None
        self.session = session_value(token).encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.expected is None or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        request = Request(scope)  # headers, cookies and query only: the body is never read here
        if scope["path"] == "/" and "token" in request.query_params:
            await self._sign_in(request)(scope, receive, send)
        elif self._carries_token(request):
            await self.app(scope, receive, send)
        else:
            await error_response(unauthorised(request), scope["path"])(scope, receive, send)

    def _carries_token(self, request: Request) -> bool:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and given.strip():
            return self._matches(given.strip().encode(), self.expected)
        cookie = request.cookies.get(COOKIE)
        return bool(cookie) and self._matches(cookie.encode(), self.session)

    @staticmethod
    def _matches(given: bytes, expected: bytes | None) -> bool:
        return expected is not None and hmac.compare_digest(given, expected)

    def _sign_in(self, request: Request) -> Response:
        """`/?token=…`: the right token gets the cookie and a redirect to the page without it."""
        if not self._matches(request.query_params["token"].strip().encode(), self.expected):
            return error_response(_unauthorised("wrong token"), request.url.path)
        kept = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
        response = RedirectResponse("/" + (f"?{kept}" if kept else ""), status_code=303)
        response.set_cookie(COOKIE, self.session.decode(), path="/", httponly=True,  # type: ignore[union-attr]
                            samesite="strict")
        return response


def unauthorised(request: Request) -> ApiError:
    """A missing token says how to send one; a wrong one says only that it is wrong."""
    if request.headers.get("authorization") or request.cookies.get(COOKIE):
        return _unauthorised("wrong token")
    return _unauthorised("this server needs a token: send `Authorization: Bearer <token>`, "
                         "or open /?token=<token> once in a browser")


def _unauthorised(message: str) -> ApiError:
    error = ApiError(401, message)
    error.headers = {"WWW-Authenticate": "Bearer"}
    return error
