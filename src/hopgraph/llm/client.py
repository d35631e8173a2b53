"""A client for any OpenAI-compatible `/chat/completions` endpoint (Ollama, vLLM, llama.cpp server,
OpenAI) that returns validated pydantic objects.

Local servers time out, run out of slots (429/503) and sample malformed JSON; a run over thousands
of chunks must ride that out, so every transient problem is retried with exponential backoff and
jitter, and what still fails becomes one `LLMError` naming the endpoint, model and last problem —
never a bare httpx or pydantic exception. Replies are cached only after they validate.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import httpx
import pydantic

from hopgraph.llm.cache import LLMCache, LLMError, cache_key
from hopgraph.llm.replies import StreamProblem, reply_body, retry_after, strip_fences
from hopgraph.text.tokens import count_tokens

T = TypeVar("T")
Model = TypeVar("Model", bound=pydantic.BaseModel)

CONNECT_TIMEOUT = 5.0  # seconds to open a connection: a server that is there accepts at once
# Seconds to the reply's first byte, and between two streamed pieces of it: the reply is streamed, so a
# live server shows it is working long before a long reply ends, and a silent one is given up on early.
FIRST_BYTE_TIMEOUT = 12.0
CONNECT_RETRIES = 1  # a refused connection (or a silent server) is retried once: one that is down stays down
BREAKER_AFTER = 3  # consecutive failed calls after which every call fails at once (the circuit opens)


@dataclass(frozen=True)
class LLMResult(Generic[T]):
    """One validated reply; tokens are what the reply cost when it was first received."""

    value: T
    tokens_in: int
    tokens_out: int
    cached: bool


@dataclass(frozen=True)
class LLMRequest:
    """One `complete_json` call, for `complete_many`."""

    messages: list[dict[str, Any]]
    response_model: type[pydantic.BaseModel]
    max_tokens: int = 1024
    temperature: float = 0.0
    step: str = "default"


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


class _Retry(Exception):
    """A transient problem: try again after `delay` seconds (None: exponential backoff). `refused`:
    nobody accepted the connection, or nobody answered it (retried only CONNECT_RETRIES times, and
    the circuit opens at once when that fails too)."""

    def __init__(self, problem: str, delay: float | None = None, refused: bool = False) -> None:
        super().__init__(problem)
        self.delay = delay
        self.refused = refused


class LLMClient:
    """Chat completions with structured output, retries, a concurrency cap and token accounting."""

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = 60.0, max_retries: int = 3,
                 max_concurrency: int = 4, cache: LLMCache | None = None, backoff: float = 0.5,
                 first_byte: float = FIRST_BYTE_TIMEOUT) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise LLMError(f"LLM endpoint {base_url!r} must start with http:// or https://")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.max_retries = max_retries
        self.max_concurrency = max(1, max_concurrency)
        self.cache = cache
        self.backoff = backoff
        self.endpoint = f"{self.base_url}/chat/completions"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        limits = httpx.Limits(max_connections=self.max_concurrency, max_keepalive_connections=self.max_concurrency)
        timeouts = httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT))
        self._http = httpx.Client(headers=headers, timeout=timeouts, limits=limits)
        self._failures = 0  # consecutive calls that ended in an error (the circuit breaker's count)
        self._last_problem = ""
        # The cap holds for every caller, not only complete_many: threads sharing a client share it.
        self._slots = threading.BoundedSemaphore(self.max_concurrency)
        self._lock = threading.Lock()
        self._usage: dict[str, StepUsage] = {}
        self._timeout = timeout  # the whole reply, however long it streams
        self._first_byte = min(first_byte, timeout)
        self._deadline_at: float | None = None  # time.monotonic() past which no call starts or waits
        self._deadline_seconds: float | None = None
        self._json_object_only = False  # set once a server rejects json_schema; kept for our lifetime

    @property
    def usage(self) -> dict[str, StepUsage]:
        """A snapshot of token accounting per step name."""
        with self._lock:
            return dict(self._usage)

    @property
    def json_schema_supported(self) -> bool:
        return not self._json_object_only

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def complete_json(self, messages: list[dict[str, Any]], response_model: type[Model], *, max_tokens: int = 1024,
                      temperature: float = 0.0, step: str = "default") -> LLMResult[Model]:
        """Ask for one JSON object matching `response_model`; returns it validated."""
        return self._complete(messages, response_model, max_tokens, temperature, step)

    def complete_text(self, messages: list[dict[str, Any]], max_tokens: int = 1024, step: str = "default", *,
                      temperature: float = 0.0) -> LLMResult[str]:
        """A free-text answer, with the same retries, cache and accounting."""
        return self._complete(messages, None, max_tokens, temperature, step)

    def complete_many(self, requests: Sequence[LLMRequest],
                      progress: Callable[[int, int], None] | None = None) -> list[LLMResult[Any] | LLMError]:
        """Run many `complete_json` calls, at most `max_concurrency` in flight, results in input order.

        A request that fails yields its `LLMError` in its slot instead of raising, so the caller can
        record that one chunk as failed and keep the rest of the run.
        """
        results: list[LLMResult[Any] | LLMError | None] = [None] * len(requests)
        done = 0

        def run(index: int) -> None:
            request = requests[index]
            try:
                results[index] = self.complete_json(request.messages, request.response_model,
                                                    max_tokens=request.max_tokens,
                                                    temperature=request.temperature, step=request.step)
            except LLMError as err:
                results[index] = err

        with ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="llm") as pool:
            try:
                for future in as_completed([pool.submit(run, index) for index in range(len(requests))]):
                    future.result()  # anything but LLMError (a broken cache, a bug, Ctrl-C) ends the run
                    done += 1
                    if progress:
                        progress(done, len(requests))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)  # do not start what is still queued
                raise
        return results  # type: ignore[return-value]  # every slot was filled above

    # --- internals ---------------------------------------------------------------------------------

    def _complete(self, messages: list[dict[str, Any]], response_model: type[pydantic.BaseModel] | None,
                  max_tokens: int, temperature: float, step: str) -> LLMResult[Any]:
        key = cache_key(self.model, messages, response_model.__name__ if response_model else None,
                        max_tokens, temperature)
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            try:
                value = self._validate(hit.response, response_model)
            except _Retry:
                pass  # stored under an older schema: ask again, and the new reply replaces it
            else:
                self._count(step, calls=1, cached=1, cached_tokens_in=hit.tokens_in, cached_tokens_out=hit.tokens_out)
                return LLMResult(value, hit.tokens_in, hit.tokens_out, cached=True)
        self._check_circuit()
        try:
            text, tokens_in, tokens_out, value = self._attempts(messages, response_model, max_tokens, temperature, step)
        except LLMError as err:
            with self._lock:
                self._failures += 1
                self._last_problem = str(err)
            raise
        with self._lock:
            self._failures = 0
        if self.cache is not None:
            self.cache.put(key, self.model, text, tokens_in, tokens_out)
        self._count(step, calls=1)
        return LLMResult(value, tokens_in, tokens_out, cached=False)

    def set_deadline(self, seconds: float | None) -> None:
        """Every call from now on must end within `seconds` in all (None: no deadline): what one
        command may spend on the LLM, retries and waits included."""
        self._deadline_at = None if seconds is None else time.monotonic() + seconds
        self._deadline_seconds = seconds

    @contextmanager
    def deadline(self, seconds: float | None) -> Iterator[None]:
        """The calls inside share one deadline of `seconds` (None: none), lifted on the way out."""
        self.set_deadline(seconds)
        try:
            yield
        finally:
            self.set_deadline(None)

    def _remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline); past it, an LLMError."""
        if self._deadline_at is None:
            return None
        left = self._deadline_at - time.monotonic()
        if left <= 0:
            raise LLMError(f"LLM {self.model!r} at {self.endpoint}: the deadline of {self._deadline_seconds:g} s "
                           f"for this command passed (setting llm_deadline)")
        return left

    @property
    def circuit_open(self) -> bool:
        """Whether calls now fail at once (failed calls in a row, or a server refusing or silent)."""
        with self._lock:
            return self._failures >= BREAKER_AFTER

    def _open_circuit(self) -> None:
        """A server that refuses or never answers will not do better next call (`_complete` counts one more)."""
        with self._lock:
            self._failures = max(self._failures, BREAKER_AFTER - 1)

    def _check_circuit(self) -> None:
        """Fail at once after BREAKER_AFTER consecutive failed calls: a server that is down or silent
        must not cost every remaining chunk its retries and timeouts."""
        with self._lock:
            if self._failures >= BREAKER_AFTER:
                raise LLMError(f"LLM {self.model!r} at {self.endpoint}: {self._failures} calls in a row failed, "
                               f"so no more are tried; the last: {self._last_problem}")

    def _attempts(self, messages: list[dict[str, Any]], response_model: type[pydantic.BaseModel] | None,
                  max_tokens: int, temperature: float, step: str) -> tuple[str, int, int, Any]:
        """The request with its retries: transient problems up to `max_retries` times, a refused
        connection only CONNECT_RETRIES times."""
        problem, refused = "no attempt made", 0
        for attempt in range(self.max_retries + 1):
            try:
                text, tokens_in, tokens_out, finish = self._post(messages, response_model, max_tokens, temperature,
                                                                 step)
                return text, tokens_in, tokens_out, self._validate_reply(text, response_model, finish, max_tokens,
                                                                         temperature)
            except _Retry as retry:
                problem = str(retry)
                refused += retry.refused
                if refused > CONNECT_RETRIES:
                    self._open_circuit()
                    raise LLMError(f"LLM {self.model!r} at {self.endpoint} is not reachable: {problem}") from None
                if attempt < self.max_retries:
                    delay = retry.delay if retry.delay is not None else self._backoff(attempt)
                    left = self._remaining()
                    time.sleep(delay if left is None else min(delay, left))
        raise LLMError(f"LLM {self.model!r} at {self.endpoint} failed after {self.max_retries + 1} attempts: "
                       f"{problem}")

    def _backoff(self, attempt: int) -> float:
        delay = self.backoff * 2**attempt
        return delay + random.uniform(0, delay)  # jitter: parallel workers do not retry in lockstep

    def _post(self, messages: list[dict[str, Any]], response_model: type[pydantic.BaseModel] | None,
              max_tokens: int, temperature: float, step: str) -> tuple[str, int, int, str]:
        """One request (plus the one-time json_schema → json_object fallback); returns the reply
        text, its tokens and finish reason; raises `_Retry` for transient problems and `LLMError`
        for final ones."""
        while True:
            fallback_possible = response_model is not None and not self._json_object_only
            body = self._body(messages, response_model, max_tokens, temperature)
            body["stream"] = True  # pieces arrive as they are made: a silent server is told from a slow one
            left = self._remaining()
            whole = self._timeout if left is None else min(self._timeout, left)
            timeout = httpx.Timeout(min(self._first_byte, whole), connect=min(whole, CONNECT_TIMEOUT))
            try:
                with self._slots, self._http.stream("POST", self.endpoint, json=body, timeout=timeout) as response:
                    if response.status_code == 200:
                        return self._read(reply_body(response, time.monotonic() + whole, self._timeout), messages, step)
                    response.read()
            except StreamProblem as err:
                raise _Retry(str(err)) from None
            except httpx.TimeoutException as err:
                silent = isinstance(err, httpx.ConnectTimeout | httpx.ReadTimeout)
                raise _Retry(f"timed out ({type(err).__name__}: no reply within {timeout.read:g} s)",
                             refused=silent) from None
            except httpx.ConnectError as err:  # refused, no route, unknown host: nobody is listening
                raise _Retry(f"connection failed ({type(err).__name__}: {err})", refused=True) from None
            except httpx.HTTPError as err:  # connection reset, broken transfer encoding, …
                raise _Retry(f"connection failed ({type(err).__name__}: {err})") from None
            finally:
                self._count(step, requests=1)
            status, detail = response.status_code, response.text[:300]
            if status in (400, 422) and fallback_possible and re.search(r"response_format|json_schema", detail, re.I):
                with self._lock:
                    self._json_object_only = True
                continue  # not an attempt: the same request in the form this server understands
            if status == 429:
                raise _Retry(f"HTTP 429 rate limited: {detail}", retry_after(response))
            if status >= 500:
                raise _Retry(f"HTTP {status}: {detail}")
            raise LLMError(f"LLM {self.model!r} at {self.endpoint} rejected the request: HTTP {status}: {detail}")

    def _body(self, messages: list[dict[str, Any]], response_model: type[pydantic.BaseModel] | None,
              max_tokens: int, temperature: float) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": max_tokens,
                                "temperature": temperature}
        if response_model is None:
            return body
        schema = response_model.model_json_schema()
        if self._json_object_only:
            # json_object mode constrains only the syntax: the schema has to travel in the prompt
            # (OpenAI also insists that the word JSON appears in the messages).
            hint = f"Reply with one JSON object that matches this JSON Schema:\n{json.dumps(schema)}"
            body["messages"] = [*messages, {"role": "system", "content": hint}]
            body["response_format"] = {"type": "json_object"}
        else:
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": response_model.__name__, "schema": schema, "strict": True}}
        return body

    def _read(self, raw: str, messages: list[dict[str, Any]], step: str) -> tuple[str, int, int, str]:
        try:
            payload = json.loads(raw)
            text = payload["choices"][0]["message"]["content"]
            finish = str(payload["choices"][0].get("finish_reason") or "")
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise _Retry(f"malformed reply body ({type(err).__name__}: {err}): {raw[:200]!r}") from None
        if not isinstance(text, str) or not text.strip():
            raise _Retry(f"empty reply: {raw[:200]!r}")
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
        tokens_in, tokens_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if not isinstance(tokens_in, int):  # some servers omit usage: count as every budget here is counted
            tokens_in = sum(count_tokens(str(message.get("content", ""))) for message in messages)
        if not isinstance(tokens_out, int):
            tokens_out = count_tokens(text)
        self._count(step, tokens_in=tokens_in, tokens_out=tokens_out)
        return text, tokens_in, tokens_out, finish

    def _validate_reply(self, text: str, response_model: type[pydantic.BaseModel] | None, finish: str,
                        max_tokens: int, temperature: float) -> Any:
        try:
            return self._validate(text, response_model)
        except _Retry as retry:
            if finish == "length" and temperature == 0:
                # Cut off at max_tokens: at temperature 0 the same request is cut at the same place,
                # so a retry would only pay for the same tokens again (a small model's repetition loop).
                raise LLMError(f"LLM {self.model!r}: reply cut off at max_tokens={max_tokens} and invalid; "
                               f"not retried ({retry})") from None
            raise

    @staticmethod
    def _validate(text: str, response_model: type[pydantic.BaseModel] | None) -> Any:
        if response_model is None:
            return text
        try:
            return response_model.model_validate_json(strip_fences(text))
        except pydantic.ValidationError as err:
            summary = "; ".join(f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in err.errors()[:3])
            raise _Retry(f"reply does not match {response_model.__name__} ({summary}): {text[:200]!r}") from None

    def _count(self, step: str, **delta: int) -> None:
        with self._lock:
            current = self._usage.get(step, StepUsage())
            self._usage[step] = replace(current, **{name: getattr(current, name) + value
                                                    for name, value in delta.items()})


def usage_since(before: dict[str, StepUsage], after: dict[str, StepUsage]) -> StepUsage:
    """What was spent between two `LLMClient.usage` snapshots, summed over every step."""
    total = StepUsage()
    for step, now in after.items():
        then = before.get(step, StepUsage())
        total = StepUsage(**{name: getattr(total, name) + getattr(now, name) - getattr(then, name)
                             for name in StepUsage.__dataclass_fields__})
    return total
