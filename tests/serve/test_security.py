"""The token rule over real HTTP: a server bound to 0.0.0.0 with a token, reached via 127.0.0.1,
answers /health to anyone and every other path — the API, its docs, the inspector's page and files —
only with `Authorization: Bearer <token>` or the session cookie a browser gets at `/?token=…`."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from inspector_app import CHROMIUM, CHROMIUM_ARGS
from serve_kit import running_server

from hopgraph.errors import HopgraphError
from hopgraph.serve.security import COOKIE, check_binding, usable_token

TOKEN = "s3cret-token-for-tests"
GUARDED = [("POST", "/ask", {"question": "Where is Burbank?"}), ("GET", "/entities?q=burbank", None),
           ("GET", "/documents/1", None), ("DELETE", "/documents/1", None), ("GET", "/paths?to=California", None),
           ("GET", "/communities", None), ("POST", "/documents", {"title": "t", "text": "x"}),
           ("GET", "/docs", None), ("GET", "/openapi.json", None), ("GET", "/", None),
           ("GET", "/static/inspector.js", None), ("GET", "/api/inspect/chunk/1", None), ("GET", "/no-such-path", None),
           ("GET", "/documents", None), ("GET", "/static/documents.js", None)]
OPEN = ["/", "/docs", "/openapi.json", "/static/inspector.js"]  # what a browser loads first


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
    listed = call(open_to_all, "GET", "/documents", None, {"Authorization": f"Bearer {TOKEN}"})
    assert listed.status_code == 200 and listed.json()["documents"]  # the documents view's list
    for path in OPEN:
        assert call(open_to_all, "GET", path, None, {"Authorization": f"Bearer {TOKEN}"}).status_code == 200, path


def test_a_malformed_body_without_a_token_is_401_not_400(open_to_all):
    def post(headers: dict[str, str]) -> httpx.Response:
        return httpx.post(f"{open_to_all}/ask", content=b'{"question": "Whe',
                          headers={"content-type": "application/json", **headers}, timeout=60)

    assert post({}).status_code == 401  # the token is checked before the body is read
    assert post({"Authorization": f"Bearer {TOKEN}"}).status_code == 400


def test_opening_the_page_with_the_token_sets_a_strict_httponly_cookie(open_to_all):
    signed_in = httpx.get(f"{open_to_all}/", params={"token": TOKEN, "q": "Where is Burbank?"})
    assert signed_in.status_code == 303
    assert signed_in.headers["location"] == "/?q=Where+is+Burbank%3F"  # the token leaves the address bar
    cookie = signed_in.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and TOKEN not in cookie
    assert {"httponly", "samesite=strict", "path=/"} <= {part.strip().lower() for part in cookie.split(";")}
    with httpx.Client(base_url=open_to_all, cookies=signed_in.cookies, timeout=120) as browser:
        assert browser.get("/").status_code == 200 and "hopgraph inspector" in browser.get("/").text
        assert browser.get("/static/inspector.js").status_code == 200
        answered = browser.post("/api/inspect/ask", json={"question": "Where is Burbank?"})
        assert answered.status_code == 200 and answered.json()["stages"]
    forged = httpx.get(f"{open_to_all}/", cookies={COOKIE: "0" * 64})
    assert forged.status_code == 401 and forged.json() == {"error": "wrong token"}


@pytest.mark.slow
@pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason=f"no chromium at {CHROMIUM}")
def test_the_inspector_works_in_a_browser_signed_in_once_with_the_token(open_to_all):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(f"{open_to_all}/?token={TOKEN}")
        assert page.url == f"{open_to_all}/"  # signed in, the token gone from the address
        page.fill("#question", "Where is Burbank?")
        page.click("#ask")
        expect(page.locator("#hits tbody tr").first).to_be_visible(timeout=120_000)
        assert page.evaluate("document.cookie") == ""  # HttpOnly: the page's scripts never see it
        page.click(".tab[data-view=documents]")  # its list and its uploads use the same cookie
        expect(page.locator("#documents-table tbody tr").first).to_be_visible(timeout=60_000)
        browser.close()


def test_the_wrong_token_in_the_address_sets_no_cookie(open_to_all):
    refused = httpx.get(f"{open_to_all}/", params={"token": "wrong"})
    assert refused.status_code == 401 and "set-cookie" not in refused.headers


def test_without_a_token_on_loopback_every_path_is_open(server):
    for path in OPEN:
        assert httpx.get(f"{server}{path}", timeout=60).status_code == 200, path


@pytest.mark.parametrize("token", ["", "   ", "\t\n"])
def test_a_token_of_only_whitespace_is_refused(token):
    with pytest.raises(HopgraphError, match="empty or only whitespace"):
        usable_token(token)


def test_a_token_loses_its_surrounding_whitespace():
    assert usable_token(" s3cret\n") == "s3cret" and usable_token(None) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "example.org"])
def test_a_reachable_address_without_a_token_is_refused(host):
    with pytest.raises(HopgraphError, match="--token"):
        check_binding(host, None)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]"])
def test_loopback_needs_no_token(host):
    check_binding(host, None)
