"""A deterministic stand-in for an extraction model, for fake_llm's real HTTP server on 127.0.0.1.

An extraction request is answered from its chunk's text: the `replies` given for that text, else the
text's capitalised names (ORG, at most four) with the first RELATED_TO each other one. An answer
request is answered "from the evidence", citing every chunk it was given. Every request is kept (the
FakeLLM's), so a test counts what was asked."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from fake_llm import Reply, chat

from hopgraph.prompts import answer as answer_prompt
from hopgraph.prompts import extraction

NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*")
ANSWER = "from the evidence"


def chunk_text(body: dict[str, Any]) -> str:
    """The text an extraction request quotes (prompts/extraction.py's USER template)."""
    return body["messages"][1]["content"].split('"""\n', 1)[1].rsplit('\n"""', 1)[0]


def named(text: str) -> dict[str, Any]:
    names = list(dict.fromkeys(NAME.findall(text)))[:4]
    return {"entities": [{"name": n, "type": "ORG", "description": ""} for n in names],
            "relations": [{"source": names[0], "relation": "RELATED_TO", "target": n, "description": "",
                           "date": None} for n in names[1:]]}


def responder(replies: dict[str, dict[str, Any]] | None = None) -> Callable[[dict[str, Any]], Reply]:
    def reply(request: dict[str, Any]) -> Reply:
        body = request["body"]
        system = body["messages"][0]["content"]
        if system == extraction.SYSTEM:
            text = chunk_text(body)
            return chat(json.dumps((replies or {}).get(text) or named(text)))
        if system == answer_prompt.SYSTEM:
            cited = [int(c) for c in re.findall(r"\[chunk (\d+)\]", body["messages"][1]["content"])]
            return chat(json.dumps({"answer": ANSWER, "citations": cited}))
        return Reply(500, {"error": "not an extraction or an answer"})
    return reply


def extraction_texts(bodies: list[dict[str, Any]]) -> list[str]:
    """The chunk text of every extraction request among these, in arrival order."""
    return [chunk_text(b) for b in bodies if b["messages"][0]["content"] == extraction.SYSTEM]
