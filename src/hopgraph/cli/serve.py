"""`hopgraph serve`: the HTTP API (and the web inspector, when installed) over one store.

FastAPI and uvicorn are the `serve` extra; without them the command names it and exits 2.
"""

from __future__ import annotations

from typing import Annotated

import typer

from hopgraph import extras
from hopgraph.cli.options import QuietOpt, SearchInOpt, StoreOpt
from hopgraph.config import load_settings

SERVE_LIBRARIES = ("fastapi", "uvicorn", "multipart", "fastapi_offline", "sse_starlette")  # multipart: python-multipart
# Seconds an idle keep-alive connection stays open (uvicorn's default is 5). A client or proxy that
# reuses a connection at the moment the server closes it gets "connection reset" for a request the
# server never saw: at 5 s, 1 of 1,099 requests of bench/replicas.py at 100k (a client that asks three
# replicas in turn leaves each connection idle for two requests' time). Proxies close theirs first
# when the server waits longer than they do (nginx's upstream and cloud load balancers: 60 s).
KEEP_ALIVE_SECONDS = 75


def serve(host: Annotated[str, typer.Option("--host", help="Address to bind: anything but 127.0.0.1, "
                                            "localhost or ::1 needs a token.")] = "127.0.0.1",
          port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8000,
          store: StoreOpt = None,
          token: Annotated[str | None, typer.Option("--token", envvar="HOPGRAPH_TOKEN", show_default=False,
                                                    help="Every request but /health must carry it: "
                                                         "`Authorization: Bearer <token>`, or a browser opens "
                                                         "/?token=<token> once (a session cookie).")] = None,
          search_in: SearchInOpt = None, quiet: QuietOpt = False) -> None:
    """Serve the store over HTTP: POST /ask, /documents, GET /entities, /paths, /communities, /health;
    OpenAPI docs at /docs. The store stays open, so its search structures load once.

    Needs the serve extra: pip install 'hopgraph\\[serve]'."""
    if not all(extras.available(name) for name in SERVE_LIBRARIES):
        raise extras.MissingExtra("serve", "hopgraph serve")
    import uvicorn

    from hopgraph.serve.app import create_app
    from hopgraph.serve.security import check_binding, usable_token

    token = usable_token(token)
    check_binding(host, token)
    settings = load_settings(store=store, search_in=search_in)
    app = create_app(settings.store, settings, token)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"hopgraph: serving {app.state.graph.location} at http://{shown}:{port} (docs at /docs)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning" if quiet else "info",
                timeout_keep_alive=KEEP_ALIVE_SECONDS)


def register(app: typer.Typer) -> None:
    app.command()(serve)
