"""The API's routers, one module per resource: questions (ask), documents, the knowledge graph
(entities, paths, communities) and health. Each route is a plain function over the SharedGraph
(shared_graph.py), reading on its reader or writing on its writer."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse


class JsonResult(JSONResponse):
    """hopgraph's own records as JSON, the way `--json` prints them (anything else as its string)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, default=str).encode("utf-8")
