"""The app as `hopgraph serve` runs it: the API's docs page works offline (its assets are served by
the app itself, from the fastapi-offline package, never from a CDN); an idle connection is kept
longer than the 5 s that made a client's reuse of it fail."""

from __future__ import annotations

import re
import socket
import time
from urllib.parse import urlsplit

import httpx


def test_docs_load_swagger_ui_from_the_server_itself_not_a_cdn(server):
    page = httpx.get(f"{server}/docs", timeout=30)
    assert page.status_code == 200 and "swagger" in page.text.lower()
    assets = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", page.text)
    assert assets and not [a for a in assets if a.startswith(("http:", "https:", "//"))], assets
    for asset in assets:  # the script, the stylesheet and the icon, each served here
        assert httpx.get(f"{server}{asset}", timeout=30).status_code == 200, asset
    assert "/openapi.json" in page.text and httpx.get(f"{server}/openapi.json", timeout=30).status_code == 200


def test_an_idle_keep_alive_connection_still_answers_after_uvicorns_default_five_seconds(server):
    """uvicorn closes an idle connection after 5 s by default; a client (or proxy) that reuses it then
    loses its request to "connection reset". `serve` keeps it open for KEEP_ALIVE_SECONDS."""
    address = urlsplit(server)
    request = f"GET /health HTTP/1.1\r\nHost: {address.hostname}\r\nConnection: keep-alive\r\n\r\n".encode()
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        for pause in (0.0, 6.5):
            time.sleep(pause)
            connection.sendall(request)
            head, body = read_response(connection)
            assert head.startswith(b"HTTP/1.1 200") and b'"status":"ok"' in body, head


def read_response(connection: socket.socket) -> tuple[bytes, bytes]:
    """One HTTP/1.1 response with a Content-Length, read whole; (b"", b"") when the server closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        if not (part := connection.recv(65536)):
            return data, b""
        data += part
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    while len(body) < length:
        if not (part := connection.recv(65536)):
            break
        body += part
    return head, body
