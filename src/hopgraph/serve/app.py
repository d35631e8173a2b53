"""`create_app`: the FastAPI application over one open store.

The store is opened (and its search structures loaded) when the app is made, so a missing store
or a bad setting fails before the server binds; it is closed when the server stops. Routers:
routes/ (the API; under /v1/ the OpenAI-compatible chat API, routes/chat.py) and, when it is
installed, the web inspector (serve/inspector.py, served at `/`); without it `/` sends the browser
to the API's docs at /docs. With a token every request but GET /health must carry it
(security.TokenGuard, the outermost middleware: before routing, before any body is read);
bodies are held to their limits (limits.py).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.responses import RedirectResponse
from fastapi_offline import FastAPIOffline

import hopgraph
from hopgraph.config import Settings
from hopgraph.serve.errors import install_error_handlers
from hopgraph.serve.limits import BodyLimit, Limits
from hopgraph.serve.routes import ask, chat, documents, graph, health
from hopgraph.serve.security import BEARER, TokenGuard, usable_token
from hopgraph.serve.shared_graph import SharedGraph

INSPECTOR = "hopgraph.serve.inspector"


def create_app(store: str, settings: Settings, token: str | None = None, limits: Limits | None = None) -> FastAPI:
    token = usable_token(token)
    shared = SharedGraph(store, settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        shared.close()

    # FastAPIOffline: /docs and /redoc load Swagger UI and ReDoc from the fastapi-offline package
    # (mounted at /static-offline-docs), not from a CDN, so they work without internet.
    app = FastAPIOffline(title="hopgraph", version=hopgraph.__version__, lifespan=lifespan,
                         description="Multi-hop retrieval over a name-link graph and a knowledge graph: ask questions, "
                                     "add and remove documents, walk entities and paths.")
    app.state.graph = shared
    install_error_handlers(app)
    app.add_middleware(BodyLimit, limits=limits or Limits())
    app.add_middleware(TokenGuard, token=token)  # added last, so it runs first
    documented = [Depends(BEARER)]  # the bearer scheme in OpenAPI, so /docs offers "Authorize"
    app.include_router(health.router)
    for router in (ask.router, chat.router, documents.router, graph.router):
        app.include_router(router, dependencies=documented)
    _serve_root(app, documented)
    return app


def _serve_root(app: FastAPI, documented: list) -> None:
    """The inspector at `/` when its module is installed, else a redirect to the API docs."""
    if importlib.util.find_spec(INSPECTOR) is not None:
        inspector = importlib.import_module(INSPECTOR)
        app.include_router(inspector.pages)  # behind the token too (TokenGuard): a browser signs in at /?token=
        app.mount("/static", inspector.static_files(), name="static")
        app.include_router(inspector.router, dependencies=documented)
        return

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/docs")
