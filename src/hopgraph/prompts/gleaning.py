"""Gleaning: after an extraction, ask once more for what was missed (same reply model).

Microsoft GraphRAG's trick for recall; each round is one more call per chunk, so it is opt-in
(`gleanings = N` in the settings) and counted in `hopgraph estimate`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

FOLLOW_UP = """Some entities or relations stated in the text may have been missed. List ONLY the
additional ones, under the same rules and vocabulary, or empty lists if nothing was missed."""


def messages(first: list[dict[str, Any]], previous: BaseModel) -> list[dict[str, Any]]:
    """The first exchange, the reply so far, and the follow-up question."""
    return [*first, {"role": "assistant", "content": json.dumps(previous.model_dump())},
            {"role": "user", "content": FOLLOW_UP}]
