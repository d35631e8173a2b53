"""Search tests' view of the fake OpenAI-compatible server (tests/fake_llm.py): a responder maps
each request body to (status, reply content), every reply bills USAGE, and the bodies are kept."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fake_llm import FakeLLM, Reply, chat, serving

Responder = Callable[[dict[str, Any]], tuple[int, Any]]  # request body → (status, reply content or error)
USAGE = {"prompt_tokens": 100, "completion_tokens": 20}  # what every scripted reply bills


class ScriptedChat:
    def __init__(self, fake: FakeLLM) -> None:
        self.fake = fake
        self.url = ""

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return self.fake.bodies

    def user_messages(self, system: str) -> list[str]:
        """The user message of every request made with this system prompt, in arrival order."""
        return [b["messages"][1]["content"] for b in self.bodies if b["messages"][0]["content"] == system]


def _reply(status: int, content: Any) -> Reply:
    if status != 200:
        return Reply(status, {"error": content})
    return chat(content if isinstance(content, str) else json.dumps(content), USAGE)


@contextmanager
def scripted_chat(responder: Responder) -> Iterator[ScriptedChat]:
    fake = FakeLLM()
    fake.responder = lambda request: _reply(*responder(request["body"]))
    with serving(fake) as url:
        scripted = ScriptedChat(fake)
        scripted.url = url
        yield scripted
