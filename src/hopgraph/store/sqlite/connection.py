"""Opening a SQLite store safely, and the write transaction every change goes through.

- A command that only reads never creates a store: a mistyped `--store` is an error, not debris.
- The file is checked before anything is written (migrations.check_and_migrate).
- WAL mode: readers keep answering from the last committed state while a writer runs.
- Writers queue: `BEGIN IMMEDIATE` waits up to the lock timeout for another writer; while a
  writer holds the lock, a small `<store>.writer` file says who it is, so the one waiting can
  name what holds the store when it gives up.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

from hopgraph.errors import HopgraphError, StoreBusy
from hopgraph.records.documents import utc_now
from hopgraph.store.processes import alive
from hopgraph.store.sqlite.migrations import check_and_migrate

MEMORY = ":memory:"


def connect(path: str, create: bool, lock_timeout: float) -> sqlite3.Connection:
    """An open, checked, migrated connection (autocommit: transactions are explicit)."""
    if path != MEMORY:
        if Path(path).is_dir():
            raise HopgraphError(f"{path} is a folder, not a store file: give --store a file name such as "
                                f"{Path(path) / 'hopgraph.db'}")
        if not Path(path).exists():
            if not create:
                raise HopgraphError(f"no store at {path}: run `hopgraph index PATH... --store {path}` first "
                                    f"(or check the --store path)")
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(path, timeout=lock_timeout, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as err:
        raise HopgraphError(f"{path}: cannot open the store ({err})") from None
    try:
        check_and_migrate(db, path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.OperationalError as err:
        db.close()
        raise locked_error(path, err) from None
    except BaseException:
        db.close()
        raise
    return db


class WriterLease:
    """`<store>.writer`: which process holds the write lock, written once it holds it."""

    def __init__(self, path: str) -> None:
        self.file = None if path == MEMORY else Path(path + ".writer")

    def take(self) -> None:
        if self.file is not None:
            holder = {"pid": os.getpid(), "command": " ".join(Path(a).name if i == 0 else a
                                                              for i, a in enumerate(sys.argv))[:200],
                      "since": utc_now()}
            self.file.write_text(json.dumps(holder), encoding="utf-8")

    def release(self) -> None:
        if self.file is not None:
            self.file.unlink(missing_ok=True)

    def describe(self) -> str:
        """Who holds the lock, as far as the lease says."""
        try:
            holder = json.loads(self.file.read_text(encoding="utf-8")) if self.file else None
        except (OSError, ValueError):
            holder = None
        if not holder:
            return "another process"
        running = alive(int(holder.get("pid", 0)))
        who = f"pid {holder.get('pid')} (`{holder.get('command', '?')}`, since {holder.get('since', '?')})"
        return who if running else f"{who}, which is no longer running"


def locked_error(path: str, err: sqlite3.OperationalError) -> HopgraphError:
    if "locked" not in str(err) and "busy" not in str(err):
        return HopgraphError(f"{path}: {err}")
    return StoreBusy(f"{path} is locked by {WriterLease(path).describe()}: another hopgraph command is "
                     f"writing to it; wait for it to finish, then run this again")


class Transaction:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any exception (KeyboardInterrupt included)."""

    def __init__(self, db: sqlite3.Connection, path: str, lock_timeout: float) -> None:
        self._db, self._path, self._lease = db, path, WriterLease(path)
        self._lock_timeout = lock_timeout

    def __enter__(self) -> None:
        try:
            # The connection's own timeout is fixed when it opens; the pragma sets this write's.
            self._db.execute(f"PRAGMA busy_timeout = {int(self._lock_timeout * 1000)}")
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise locked_error(self._path, err) from None
        self._lease.take()

    def __exit__(self, kind: object, error: object, tb: object) -> None:
        try:
            self._db.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self._lease.release()
