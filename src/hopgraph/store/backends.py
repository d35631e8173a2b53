"""Store backends by URL scheme — the one registry of them: which store a `--store` location opens.

A plain path (or `:memory:`) is the embedded SQLite store, the default; `postgresql://…` (or
`postgres://…`) is the shared PostgreSQL store. `open_store`, the errors the command line reports
as the store's, `hopgraph stats` and where a search snapshot lives all ask this registry instead of
reading the location string themselves, so adding a backend is one module with an opener and one
`register(...)` call (a plugin calls it from its entry point: hopgraph/plugins.py).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from hopgraph.errors import HopgraphError, InputError
from hopgraph.store.base import Store

Opener = Callable[[str, bool, float], Store]  # (location, create, lock_timeout) → an open store
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True)
class Backend:
    name: str
    schemes: tuple[str, ...]  # URL schemes it opens (lower case); () for the default: a plain path
    open: Opener
    description: str
    errors: Callable[[], tuple[type[Exception], ...]] = tuple  # its driver's errors (the store's, to the CLI)
    file: bool = False  # its location is a file path, beside which a search snapshot can stand


_BACKENDS: dict[str, Backend] = {}


def register(backend: Backend) -> Backend:
    """Open locations with one of `backend.schemes` (`scheme://…`) with this backend. A name and a
    scheme belong to one backend; only one backend takes plain paths."""
    taken = {scheme for other in _BACKENDS.values() for scheme in other.schemes}
    clash = (backend.name in _BACKENDS or taken & set(backend.schemes)
             or (not backend.schemes and any(not other.schemes for other in _BACKENDS.values())))
    if clash:
        raise HopgraphError(f"cannot register store backend {backend.name!r}: its name, one of its schemes or "
                            "plain paths belong to another backend")
    _BACKENDS[backend.name] = backend
    return backend


def backend_for(location: str) -> Backend:
    """The backend of a location: by its URL scheme, else the default (a path)."""
    scheme = _SCHEME.match(location)
    if scheme is None:
        return next(b for b in _BACKENDS.values() if not b.schemes)
    for backend in _BACKENDS.values():
        if scheme[1].lower() in backend.schemes:
            return backend
    raise InputError(f"unknown store scheme {scheme[0]!r}; use a file path or {described()}")


def backends() -> list[Backend]:
    return list(_BACKENDS.values())


def described() -> str:
    """The URL schemes with their backends, for help texts and errors: `postgresql:// (…)`."""
    return ", ".join(f"{' or '.join(f'{s}://' for s in b.schemes)} ({b.description})"
                     for b in _BACKENDS.values() if b.schemes)


def database_errors() -> tuple[type[Exception], ...]:
    """The errors of every installed backend's driver: what the command line reports as the store's."""
    return tuple(error for backend in _BACKENDS.values() for error in backend.errors())


# --- the built-in backends -----------------------------------------------------------------------


def _open_sqlite(location: str, create: bool, lock_timeout: float) -> Store:
    from hopgraph.store.sqlite.store import SQLiteStore

    return SQLiteStore(location, create, lock_timeout)


def _open_postgres(location: str, create: bool, lock_timeout: float) -> Store:
    from hopgraph.store.postgres.connection import require_driver

    require_driver()
    from hopgraph.store.postgres.store import PostgresStore

    return PostgresStore(location, create, lock_timeout)


def _psycopg_errors() -> tuple[type[Exception], ...]:
    try:
        import psycopg
    except ImportError:  # the postgres extra is not installed: no error of its can occur
        return ()
    return (psycopg.Error,)


register(Backend("sqlite", (), _open_sqlite, "an embedded SQLite file, the default", lambda: (sqlite3.Error,),
                 file=True))
register(Backend("postgresql", ("postgresql", "postgres"), _open_postgres,
                 "PostgreSQL with pgvector, the postgres extra", _psycopg_errors))
