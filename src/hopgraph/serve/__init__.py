"""The HTTP side of hopgraph (`hopgraph serve`, FastAPI): `create_app` in app.py, one router per
resource in routes/, the token in security.py, size limits in limits.py, the store shared by
concurrent requests in shared_graph.py, and the web inspector (inspector.py, static/). FastAPI and
uvicorn are the `serve` extra: nothing here is imported by the rest of hopgraph."""
