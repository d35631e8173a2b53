"""What the readers of binary formats share: their optional library, and its failures as skips.

pypdf and python-docx are optional extras (`hopgraph[pdf]`, `hopgraph[docx]`): a missing one makes
its files unreadable with a message that names the extra, not an ImportError at start-up.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from hopgraph import extras
from hopgraph.errors import UnreadableFile


def import_extra(module: str, extra: str, path: Path) -> ModuleType:
    """The library that reads `path`, or an UnreadableFile (the file is skipped) naming the extra."""
    try:
        return extras.require(module, extra, f"reading {path.suffix} files")
    except extras.MissingExtra as err:
        raise UnreadableFile(path, str(err)) from None


@contextmanager
def parse_errors(path: Path, kind: str, quiet_logger: str | None = None) -> Iterator[None]:
    """Turn any failure of a parser into an UnreadableFile naming the file.

    A parser of untrusted files can fail in any way (pypdf raises KeyError, ValueError,
    RecursionError on a broken file): one such file is skipped, it must not stop the run.
    `quiet_logger`: the library logs its own warnings about broken files; the skip line says it once."""
    logger = logging.getLogger(quiet_logger) if quiet_logger else None
    level = logger.level if logger else logging.NOTSET
    if logger:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    except UnreadableFile:
        raise
    except Exception as err:
        raise UnreadableFile(path, f"not a readable {kind} ({describe(err)})") from None
    finally:
        if logger:
            logger.setLevel(level)


def describe(err: BaseException) -> str:
    """`KeyError: 'x'` → the class and the first line of the message, kept short for a skip line."""
    message = str(err).strip().splitlines()[0] if str(err).strip() else ""
    message = message if len(message) <= 120 else message[:119] + "…"
    return f"{type(err).__name__}: {message}" if message else type(err).__name__
