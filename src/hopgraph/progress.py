"""Progress bars (tqdm, on stderr) that `--quiet` silences."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")


def _disabled(quiet: bool) -> bool | None:
    """True silences the bar; None lets tqdm silence it when stderr is not a terminal (logs, pipes)."""
    return True if quiet else None


def bar_over(items: Iterable[T], label: str, quiet: bool, total: int | None = None) -> Iterator[T]:
    yield from tqdm(items, desc=label, total=total, disable=_disabled(quiet), leave=False, unit="file")


@contextmanager
def counter(label: str, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """`with counter(label, quiet) as update:` — a (done, total) callback that drives one bar,
    closed however the block ends."""
    bar = tqdm(desc=label, disable=_disabled(quiet), leave=False)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield update
    finally:
        bar.close()
