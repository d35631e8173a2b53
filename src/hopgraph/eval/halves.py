"""Held-out halves: every question set splits into halves A and B by a stable hash, so a rule
chosen on one half can be reported on the other.

The hash is SHA-256 of a key (never Python's `hash()`, which changes between runs): the question's
id, or for a set whose questions come from whole sources (a book of the novel set) the source's
name, so one book's questions never fall on both sides.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TypeVar

from hopgraph.errors import InputError

HALVES = ("a", "b")
Item = TypeVar("Item")


def half_of(key: str) -> str:
    """'a' or 'b': the parity of the first eight bytes of the key's SHA-256."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return HALVES[int.from_bytes(digest[:8], "big") % 2]


def check_half(half: str | None) -> str | None:
    """The half in lower case, or None for the whole set; anything else is an error."""
    if half is None:
        return None
    chosen = half.strip().lower()
    if chosen not in HALVES:
        raise InputError(f"unknown half {half!r}; use a or b (or leave it out for the whole set)")
    return chosen


def select_half(items: Sequence[Item], half: str | None, key: Callable[[Item], str]) -> list[Item]:
    """The items whose key hashes into `half` (all of them when `half` is None), in their order."""
    chosen = check_half(half)
    return [item for item in items if chosen is None or half_of(key(item)) == chosen]
