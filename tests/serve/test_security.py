"""The token rule over real HTTP: a server bound to 0.0.0.0 with a token, reached via 127.0.0.1,
answers /health to anyone and every other route only with `Authorization: Bearer <token>`."""

from __future__ import annotations

import httpx
import pytest
from serve_kit import running_server

from hopgraph.errors import HopgraphError
from hopgraph.serve.security import check_binding

TOKEN = "s3cret-token-for-tests"
GUARDED = [("POST", "/ask", {"question": "Where is Burbank?"}), ("GET", "/entities?q=burbank", None),
           ("GET", "/documents/1", None), ("DELETE", "/documents/1", None), ("GET", "/paths?to=California", None),
           ("GET", "/communities", None), ("POST", "/documents", {"title": "t", "text": "x"})]


@pytest.fixture(scope="module")
def open_to_all(sample_store):
    with running_server(sample_store, host="0.0.0.0", token=TOKEN) as base:
        yield base


def call(base: str, method: str, path: str, body: object, headers: dict[str, str]) -> httpx.Response:
    return httpx.request(method, f"{base}{path}", json=body, headers=headers, timeout=120)


def test_health_needs_no_token(open_to_all):
    assert httpx.get(f"{open_to_all}/health").json()["status"] == "ok"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"},
                                     {"Authorization": "Bearer"}, {"Authorization": f"Bearer {TOKEN}x"}])
def test_every_other_route_refuses_a_missing_or_wrong_token(open_to_all, headers):
    for method, path, body in GUARDED:
        refused = call(open_to_all, method, path, body, headers)
        assert refused.status_code == 401, (method, path, refused.text)
        assert refused.headers["www-authenticate"] == "Bearer" and refused.json()["error"]


def test_the_right_token_lets_a_question_through(open_to_all):
    answered = call(open_to_all, "POST", "/ask", {"question": "Where is Burbank?"},
                    {"Authorization": f"Bearer {TOKEN}"})
    assert answered.status_code == 200 and answered.json()["hits"]
    assert call(open_to_all, "GET", "/documents/999999", None,
                {"Authorization": f"Bearer {TOKEN}"}).status_code == 404  # past the token, to the route


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "example.org"])
def test_a_reachable_address_without_a_token_is_refused(host):
    with pytest.raises(HopgraphError, match="--token"):
        check_binding(host, None)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]"])
def test_loopback_needs_no_token(host):
    check_binding(host, None)
