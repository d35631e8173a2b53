"""Caches of LLM replies, keyed by everything that decides the reply.

Extraction over thousands of chunks is the slow, paid part of a run; a cache makes a re-run (or a
run resumed after a crash) cost nothing for the chunks already answered. Only replies that passed
validation are ever stored, so a bad reply is never replayed. `ReplayLLMCache` serves recorded
replies from a JSON file: unit tests replay real model output without a model or network.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from hopgraph.errors import HopgraphError


class LLMError(HopgraphError):
    """An LLM call that could not produce a valid reply: names the endpoint, model and problem.

    Defined here, the lowest module of the package, so the caches can raise it too.
    """


@dataclass(frozen=True)
class CachedReply:
    """A validated reply as it was received: the raw text is re-validated on every hit."""

    model: str
    response: str
    tokens_in: int
    tokens_out: int


class LLMCache(Protocol):
    """Where `LLMClient` looks before calling the endpoint, and stores what validated."""

    def get(self, key: str) -> CachedReply | None: ...

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None: ...


def cache_key(model: str, messages: list[dict[str, Any]], response_format: str | None, max_tokens: int,
              temperature: float) -> str:
    """sha256 of a canonical JSON of the request: sorted keys and fixed separators, so two equal
    requests built in different orders share one entry. `response_format` is the response model's
    name (None for free text), not its transport mode: a json_schema and a json_object reply to
    the same request are interchangeable once validated."""
    canonical = json.dumps(
        {"model": model, "messages": messages, "format": response_format, "max_tokens": max_tokens,
         "temperature": float(temperature)},
        sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ReplayLLMCache:
    """Recorded replies in memory, loaded from (and saved to) a JSON list of
    `{key, model, response, tokens_in, tokens_out}`.

    `strict=True` is replay mode: a miss raises `LLMError("no recorded reply for …")` instead of
    letting the client reach the network, so a test can never silently depend on a live model.
    `strict=False` is record mode: misses go to the endpoint, and what validated is kept for
    `record_to(path)`.
    """

    def __init__(self, path: str | Path | None = None, *, strict: bool = True) -> None:
        self.source = str(path) if path is not None else "memory"
        self.strict = strict
        self._lock = threading.Lock()
        self._entries: dict[str, CachedReply] = {}
        if path is not None:
            self._entries = _read_replay(Path(path))

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            hit = self._entries.get(key)
        if hit is None and self.strict:
            raise LLMError(f"no recorded reply for key {key[:16]}… in {self.source} (replay mode: "
                           "re-record with strict=False against a real endpoint)")
        return hit

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None:
        with self._lock:
            self._entries[key] = CachedReply(model, response_text, int(tokens_in), int(tokens_out))

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def record_to(self, path: str | Path) -> int:
        """Write the entries (loaded and newly received) as replay JSON; returns how many."""
        with self._lock:
            entries = dict(self._entries)
        return write_replay(path, entries)


class RecordingCache:
    """Another cache (the store's) that also remembers every reply this run used, fresh or cached,
    so `record_to` writes exactly the replies a replay of the same run needs."""

    def __init__(self, inner: LLMCache) -> None:
        self.inner = inner
        self._lock = threading.Lock()
        self._used: dict[str, CachedReply] = {}

    def get(self, key: str) -> CachedReply | None:
        hit = self.inner.get(key)
        if hit is not None:
            with self._lock:
                self._used[key] = hit
        return hit

    def put(self, key: str, model: str, response_text: str, tokens_in: int, tokens_out: int) -> None:
        self.inner.put(key, model, response_text, tokens_in, tokens_out)
        with self._lock:
            self._used[key] = CachedReply(model, response_text, int(tokens_in), int(tokens_out))

    def record_to(self, path: str | Path) -> int:
        with self._lock:
            used = dict(self._used)
        return write_replay(path, used)


def recorded_model(path: str | Path) -> str:
    """The model a replay file was recorded with (replies are keyed by it); an error if it holds none
    or several."""
    models = {reply.model for reply in _read_replay(Path(path)).values()}
    if len(models) != 1:
        raise LLMError(f"{path}: recorded replies must come from one model, found {sorted(models) or 'none'}")
    return models.pop()


def _read_replay(path: Path) -> dict[str, CachedReply]:
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list):
            raise ValueError("expected a JSON list")
        return {str(row["key"]): CachedReply(str(row["model"]), str(row["response"]), int(row["tokens_in"]),
                                             int(row["tokens_out"])) for row in rows}
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise LLMError(f"cannot read recorded LLM replies from {path}: {err}") from None


def write_replay(path: str | Path, entries: dict[str, CachedReply]) -> int:
    rows = [{"key": key, **asdict(reply)} for key, reply in sorted(entries.items())]
    Path(path).write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(rows)
