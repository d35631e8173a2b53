"""The app as `hopgraph serve` runs it: the API's docs page works offline (its assets are served by
the app itself, from the fastapi-offline package, never from a CDN)."""

from __future__ import annotations

import re

import httpx


def test_docs_load_swagger_ui_from_the_server_itself_not_a_cdn(server):
    page = httpx.get(f"{server}/docs", timeout=30)
    assert page.status_code == 200 and "swagger" in page.text.lower()
    assets = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", page.text)
    assert assets and not [a for a in assets if a.startswith(("http:", "https:", "//"))], assets
    for asset in assets:  # the script, the stylesheet and the icon, each served here
        assert httpx.get(f"{server}{asset}", timeout=30).status_code == 200, asset
    assert "/openapi.json" in page.text and httpx.get(f"{server}/openapi.json", timeout=30).status_code == 200
