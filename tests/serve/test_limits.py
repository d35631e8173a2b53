"""Body limits over real HTTP: 413 for a body over the limit, declared or streamed without a length."""

from __future__ import annotations

import json

import httpx

from hopgraph.serve.limits import Limits

OVER = Limits().body_bytes + 1


def test_a_body_over_the_limit_is_413_before_it_is_read(server):
    body = json.dumps({"question": "x" * OVER}).encode()
    refused = httpx.post(f"{server}/ask", content=body, headers={"content-type": "application/json"})
    assert refused.status_code == 413
    assert "limit" in refused.json()["error"]


def test_a_streamed_body_without_a_length_is_counted_and_refused(server):
    def pieces():
        yield b'{"question": "'
        for _ in range(OVER // 65536 + 1):
            yield b"x" * 65536
        yield b'"}'

    refused = httpx.post(f"{server}/ask", content=pieces(), headers={"content-type": "application/json"})
    assert refused.status_code == 413 and "limit" in refused.json()["error"]


def test_an_upload_over_its_own_limit_is_413(server):
    data = b"a" * (Limits().upload_bytes + 1)
    refused = httpx.post(f"{server}/documents", files={"file": ("big.txt", data, "text/plain")})
    assert refused.status_code == 413


def test_a_body_under_the_limit_goes_through(server):
    answered = httpx.post(f"{server}/ask", json={"question": "Where is Burbank?" + " " * 100_000}, timeout=120)
    assert answered.status_code == 422  # past the limit on question length, which pydantic checks: not 413
