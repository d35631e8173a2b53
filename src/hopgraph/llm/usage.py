"""What LLM calls cost, per step name: calls, requests and tokens, counted by every thread sharing a client."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class StepUsage:
    """Per step: calls that returned a result (`cached` of them from the cache), HTTP requests
    sent, and tokens billed by the server for every reply received (rejected replies included:
    they cost too; cache hits add none)."""

    calls: int = 0
    cached: int = 0
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens_in: int = 0  # what the replies served from the cache cost when they were first made
    cached_tokens_out: int = 0


class UsageLedger:
    """A `StepUsage` per step, added to under a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._steps: dict[str, StepUsage] = {}

    def snapshot(self) -> dict[str, StepUsage]:
        with self._lock:
            return dict(self._steps)

    def add(self, step: str, **delta: int) -> None:
        with self._lock:
            current = self._steps.get(step, StepUsage())
            self._steps[step] = replace(current, **{name: getattr(current, name) + value
                                                    for name, value in delta.items()})


def usage_since(before: dict[str, StepUsage], after: dict[str, StepUsage]) -> StepUsage:
    """What was spent between two `LLMClient.usage` snapshots, summed over every step."""
    total = StepUsage()
    for step, now in after.items():
        then = before.get(step, StepUsage())
        total = StepUsage(**{name: getattr(total, name) + getattr(now, name) - getattr(then, name)
                             for name in StepUsage.__dataclass_fields__})
    return total
