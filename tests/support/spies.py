"""Counting the calls of a function wherever it was imported: every loaded module that holds it
under any name gets a counting stand-in (monkeypatched, so undone after the test)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest


def count_calls(monkeypatch: pytest.MonkeyPatch, function: Callable[..., Any]) -> list[tuple[Any, ...]]:
    """The list that each call of `function` appends its positional arguments to."""
    calls: list[tuple[Any, ...]] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return function(*args, **kwargs)

    holders = [(module, name) for module in list(sys.modules.values())
               if module is not None and (getattr(module, "__name__", "") or "").startswith("hopgraph")
               for name, value in list(vars(module).items()) if value is function]
    assert holders, f"nothing to count: no hopgraph module holds {function.__qualname__}"
    for module, name in holders:
        monkeypatch.setattr(module, name, counting)
    return calls
