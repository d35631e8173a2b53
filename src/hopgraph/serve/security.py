"""The token rule: a server reachable from other machines must be asked with a token.

Bound to a loopback address (127.0.0.1, localhost, ::1) the API is open to this machine only and
needs no token; bound to anything else it refuses to start without one (`--token` or
HOPGRAPH_TOKEN). With a token, every route but /health wants `Authorization: Bearer <token>`,
compared in constant time (hmac.compare_digest) so the comparison's duration tells nothing.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from hopgraph.errors import HopgraphError
from hopgraph.serve.errors import ApiError

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_ENV = "HOPGRAPH_TOKEN"
BEARER = HTTPBearer(auto_error=False)  # reads the header; the check below decides


def check_binding(host: str, token: str | None) -> None:
    """Refuse to serve a non-loopback address without a token."""
    if host.strip("[]").lower() not in LOOPBACK and not token:
        raise HopgraphError(f"serving on {host} makes the store reachable from other machines: give a token "
                            f"with --token or {TOKEN_ENV} (or bind 127.0.0.1)")


def bearer_check(token: str | None) -> Callable[..., None]:
    """A FastAPI dependency that lets a request through with the right bearer token (any request
    when there is no token). Declared as HTTP bearer, so /docs offers "Authorize" for it."""
    expected = token.encode() if token else None

    def require_token(given: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]) -> None:
        if expected is None:
            return
        if given is None or not given.credentials:
            raise _unauthorised("this server needs `Authorization: Bearer <token>`")
        if not hmac.compare_digest(given.credentials.strip().encode(), expected):
            raise _unauthorised("wrong token")

    return require_token


def _unauthorised(message: str) -> ApiError:
    error = ApiError(401, message)
    error.headers = {"WWW-Authenticate": "Bearer"}
    return error
