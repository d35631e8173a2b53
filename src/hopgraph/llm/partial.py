"""One text field of a JSON reply, read while the reply streams: a model held to a JSON schema writes
`{"answer": "Ohio River", "citations": [3]}`, and a reader wants "Ohio River" as it is written, not
the braces and citations around it. pydantic_core's partial JSON parser reads the object so far
(a string cut off mid-way included); what the field gained since the last piece is passed on."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import pydantic_core

_OPENING_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*")  # models wrap JSON in ```json … ``` even when told not to


def field_text(pieces: Iterable[str], name: str) -> Iterator[str]:
    """What the string field `name` gains as `pieces` of a JSON object arrive; every piece is read
    (the field may end long before the object does)."""
    seen, shown = "", ""
    for piece in pieces:
        seen += piece
        value = field_so_far(seen, name)
        if len(value) > len(shown) and value.startswith(shown):
            yield value[len(shown):]
            shown = value


def field_so_far(text: str, name: str) -> str:
    """The string field `name` of the JSON object that `text` begins; "" until there is some."""
    try:
        parsed = pydantic_core.from_json(_OPENING_FENCE.sub("", text, count=1), allow_partial="trailing-strings")
    except ValueError:  # nothing parseable yet (an empty text, a fence half written)
        return ""
    value = parsed.get(name) if isinstance(parsed, dict) else None
    return value if isinstance(value, str) else ""
