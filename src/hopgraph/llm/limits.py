"""What one LLM client may spend before it stops trying: a deadline shared by the calls of one
command, and a circuit breaker that fails every call at once after a run of failed ones (a server
that is down or silent must not cost every remaining chunk its retries and timeouts)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from hopgraph.llm.cache import LLMError

BREAKER_AFTER = 3  # consecutive failed calls after which every call fails at once (the circuit opens)


class Deadline:
    """A moment past which no call starts or waits (None: none)."""

    def __init__(self) -> None:
        self._at: float | None = None  # time.monotonic()
        self._seconds: float | None = None

    def set(self, seconds: float | None) -> None:
        self._at = None if seconds is None else time.monotonic() + seconds
        self._seconds = seconds

    def remaining(self, who: str) -> float | None:
        """Seconds left (None: no deadline); past it, an LLMError naming `who`."""
        if self._at is None:
            return None
        left = self._at - time.monotonic()
        if left <= 0:
            raise LLMError(f"{who}: the deadline of {self._seconds:g} s for this command passed (setting llm_deadline)")
        return left


class Breaker:
    """Counts consecutive failed calls; at BREAKER_AFTER the circuit is open and calls fail at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures = 0
        self._last_problem = ""

    @property
    def open(self) -> bool:
        with self._lock:
            return self._failures >= BREAKER_AFTER

    def trip(self) -> None:
        """A server that refuses or never answers will not do better next call (`counted` adds one more)."""
        with self._lock:
            self._failures = max(self._failures, BREAKER_AFTER - 1)

    def check(self, who: str) -> None:
        with self._lock:
            if self._failures >= BREAKER_AFTER:
                raise LLMError(f"{who}: {self._failures} calls in a row failed, so no more are tried; "
                               f"the last: {self._last_problem}")

    @contextmanager
    def counted(self) -> Iterator[None]:
        """One call: an LLMError out of it counts one failure more; getting through resets the count."""
        try:
            yield
        except LLMError as err:
            with self._lock:
                self._failures += 1
                self._last_problem = str(err)
            raise
        with self._lock:
            self._failures = 0
