"""GET /health: whether the server is up, open to anyone (no token), saying nothing about the store."""

from __future__ import annotations

from fastapi import APIRouter

import hopgraph

router = APIRouter(tags=["health"])


@router.get("/health")
def health() -> dict[str, str]:
    return {"status": "ok", "version": hopgraph.__version__}
