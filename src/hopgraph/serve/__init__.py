"""The HTTP API of `hopgraph serve` (FastAPI): `create_app` in app.py, one router per resource in
routes/, the token in security.py, size limits in limits.py, and the store shared by concurrent
requests in shared_graph.py. FastAPI and uvicorn are the `serve` extra: nothing here is imported
by the rest of hopgraph."""
