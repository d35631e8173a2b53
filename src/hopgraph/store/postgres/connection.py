"""Opening a PostgreSQL store safely, and the write transaction every change goes through.

- An unreachable server fails within `CONNECT_TIMEOUT` seconds, naming the URL (passwords hidden:
  the one before the host and any `?password=` / `?sslpassword=` parameter).
- pgvector must be there: a database without the `vector` extension (and a role that cannot create
  it) gets a message naming it.
- The tables live in the connection's current schema (`public`, or the first of `search_path`:
  `?options=-csearch_path%3Dmyschema`). A schema holding another application's tables of the
  same names is refused untouched; `hopgraph_schema` marks and versions a hopgraph store.
- Writers queue: every write transaction first takes one advisory lock per store schema, so two
  index runs against one database never interleave their writes; the one waiting gives up after
  the lock timeout and names the process (pid, command) that holds it.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hopgraph.errors import HopgraphError, StoreBusy
from hopgraph.extras import MissingExtra

try:
    import psycopg
    from pgvector.psycopg import register_vector
except ImportError:  # the extra is not installed: open_store says which one to install
    psycopg = None  # type: ignore[assignment]

CONNECT_TIMEOUT = 5  # seconds; libpq's connect_timeout (whole seconds)
SCHEMA_VERSION = 3  # 2: the keyword index of the embedded store's terms (keywords.sql); 3: the name graph
# without foreign keys (schema.sql); migrations.py
MIN_PGVECTOR = (0, 5)  # the first release with HNSW, which stores written before IVFFlat still have
FIRST_TABLES = frozenset({"documents", "chunks", "vectors", "links", "meta"})


def require_driver() -> None:
    if psycopg is None:
        raise MissingExtra("postgres", "a postgresql:// store")


# libpq reads a password from `user:password@` and from query parameters (`?password=`,
# `?sslpassword=` for the client key): any parameter whose name says password is hidden.
_SECRET_PARAMETER = re.compile(r"(?i)(^|&)([^&=]*password[^&=]*)=([^&]+)")


def shown(url: str) -> str:
    """The URL with every password replaced by ***, for messages; the rest exactly as given."""
    userinfo = urlsplit(url).netloc.rpartition("@")[0]
    user, _, password = userinfo.partition(":")
    if password:
        url = url.replace(f"//{userinfo}@", f"//{user}:***@", 1)
    head, question, query = url.partition("?")
    return head + question + _SECRET_PARAMETER.sub(r"\1\2=***", query)


def _without_secrets(text: str, url: str) -> str:
    """A driver's message with the URL's passwords taken out, should it ever quote one."""
    parts = urlsplit(url)
    secrets = [parts.netloc.rpartition("@")[0].partition(":")[2]]
    secrets += [match.group(3) for match in _SECRET_PARAMETER.finditer(parts.query)]
    for secret in sorted(filter(None, secrets), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


class PgDatabase:
    """A psycopg connection that takes the shared table code's `?` placeholders (store/sql/tables.py)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self._translated: dict[str, str] = {}
        # Held for a whole transaction block. `serve`'s reader shares one connection between request
        # threads: two blocks open at once would nest (the second a savepoint of the first) and end
        # in the wrong order ("transaction commit at the wrong nesting level"), failing requests.
        self.block = threading.RLock()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """psycopg's transaction block (BEGIN … COMMIT), no other thread's block open beside it."""
        with self.block, self.connection.transaction():
            yield

    def _sql(self, sql: str) -> str:
        if sql not in self._translated:  # the table code writes no literal `?` or `%`
            self._translated[sql] = sql.replace("%", "%%").replace("?", "%s")
        return self._translated[sql]

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        if not parameters:  # without parameters psycopg reads the text as it is: `%` stays `%`
            return self.connection.execute(sql)
        return self.connection.execute(self._sql(sql), parameters)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            with self.connection.cursor() as cursor:
                cursor.executemany(self._sql(sql), rows)

    def copy(self, table: str, columns: str, rows: Iterable[Sequence[Any]]) -> None:
        """`rows` into `table` by one `COPY … FROM STDIN`, streamed: a statement for them all where
        `executemany` runs one per row (an index run's bulk writes, store/postgres/bulk.py)."""
        with self.connection.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def close(self) -> None:
        self.connection.close()


def open_connection(url: str) -> Any:
    """An autocommit psycopg connection (transactions are explicit), vectors adapted to numpy."""
    require_driver()
    try:
        connection = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                                     application_name=_command())
    except psycopg.Error as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise HopgraphError(f"{shown(url)}: cannot reach PostgreSQL ({_without_secrets(first, url)})") from None
    try:
        _ensure_vector_extension(connection, url)
        register_vector(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def connect(url: str, create: bool, lock_timeout: float) -> PgDatabase:
    """An open, checked store: its tables created (in one locked transaction) when `create`."""
    db = PgDatabase(open_connection(url))
    try:
        version = stored_version(db, url)
        if version is None:
            if not create:
                raise HopgraphError(f"no hopgraph store at {shown(url)}: run `hopgraph index PATH... "
                                    f"--store {shown(url)}` first")
            with Transaction(db, url, lock_timeout):
                if stored_version(db, url) is None:  # another process may have made it meanwhile
                    _create_tables(db)
        elif version > SCHEMA_VERSION:
            raise HopgraphError(f"{shown(url)}: written by a newer hopgraph (PostgreSQL schema version "
                                f"{version}; this hopgraph reads up to {SCHEMA_VERSION}): upgrade hopgraph")
    except BaseException:
        db.close()
        raise
    return db


def _ensure_vector_extension(connection: Any, url: str) -> None:
    """pgvector present (created in `public` if this role may), and its types on the search path:
    a store's schema named alone in `search_path` must still see `vector`."""
    found = ("SELECT n.nspname, e.extversion FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
             "WHERE e.extname = 'vector'")
    row = connection.execute(found).fetchone()
    if row is None:
        try:
            connection.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        except psycopg.Error as err:
            reason = str(err).strip().splitlines()[0]
            raise HopgraphError(
                f"{shown(url)}: the database has no pgvector extension (`vector`) and it could not be created "
                f"({reason}); install pgvector on the server and run `CREATE EXTENSION vector;` in this "
                f"database as its owner") from None
        row = connection.execute(found).fetchone()
    if tuple(int(p) for p in row[1].split(".")[:2]) < MIN_PGVECTOR:
        raise HopgraphError(f"{shown(url)}: pgvector {row[1]} is too old; hopgraph needs pgvector "
                            f"{'.'.join(map(str, MIN_PGVECTOR))} or newer (`ALTER EXTENSION vector UPDATE;`)")
    if not connection.execute("SELECT %s = ANY(current_schemas(false))", (row[0],)).fetchone()[0]:
        connection.execute("SELECT set_config('search_path', current_setting('search_path') || ', ' || "
                           "quote_ident(%s), false)", (row[0],))


def stored_version(db: PgDatabase, url: str) -> int | None:
    """The store's schema version; None for a schema with no hopgraph tables; an error for a schema
    holding another application's tables of hopgraph's names."""
    tables = {row[0] for row in db.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    if "hopgraph_schema" in tables:
        row = db.execute("SELECT version FROM hopgraph_schema").fetchone()
        return int(row[0]) if row else 0
    clash = sorted(tables & FIRST_TABLES)
    if clash:
        raise HopgraphError(f"{shown(url)}: not a hopgraph store (schema {_schema(db)} has tables "
                            f"{', '.join(clash)} of another application); it was left untouched. Point "
                            f"--store at another database or schema (?options=-csearch_path%3Dhopgraph)")
    return None


def _schema(db: PgDatabase) -> str:
    return str(db.execute("SELECT current_schema()").fetchone()[0])


def _create_tables(db: PgDatabase) -> None:
    for script in ("schema.sql", "keywords.sql"):
        run_script(db, script)
    db.execute("INSERT INTO hopgraph_schema (version) VALUES (?)", (SCHEMA_VERSION,))


def sql_file(name: str) -> str:
    """The text of one of the package's SQL files (schema.sql, keywords.sql)."""
    return resources.files("hopgraph.store.postgres").joinpath(name).read_text("utf-8")


def run_script(db: PgDatabase, name: str) -> None:
    """One of the package's SQL files as one simple-protocol script, inside the caller's transaction."""
    db.connection.execute(sql_file(name))


def _command() -> str:
    """`pid 123 `hopgraph index docs/``: who this connection is, for a writer that waits on it."""
    words = " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv and sys.argv[0] else "python"
    room = 63 - len(f"pid {os.getpid()} ``")  # PostgreSQL keeps 63 bytes of an application name
    if len(words.encode()) > room:
        words = words.encode()[:room - 3].decode(errors="ignore") + "..."
    return f"pid {os.getpid()} `{words}`"


class Transaction:
    """BEGIN, the store's advisory writer lock, … COMMIT; ROLLBACK on any exception."""

    def __init__(self, db: PgDatabase, url: str, lock_timeout: float) -> None:
        self._db, self._url, self._lock_timeout = db, url, lock_timeout

    def __enter__(self) -> None:
        self._db.block.acquire()  # released in __exit__, or here when the lock is not had
        try:
            self._begin()
        except BaseException:
            self._db.block.release()
            raise

    def _begin(self) -> None:
        self._db.execute("BEGIN")
        try:
            # At least 1 ms: PostgreSQL reads a lock_timeout of 0 as "wait for ever".
            self._db.execute(f"SET LOCAL lock_timeout = '{max(1, int(self._lock_timeout * 1000))}ms'")
            self._db.execute("SELECT pg_advisory_xact_lock(?)", (writer_lock_key(self._db),))
        except psycopg.errors.LockNotAvailable:
            self._db.execute("ROLLBACK")
            raise StoreBusy(f"{shown(self._url)} is locked by {self._holder()}: another hopgraph command "
                            f"is writing to it; wait for it to finish, then run this again") from None
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def __exit__(self, kind: object, error: object, tb: object) -> None:
        try:
            self._db.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self._db.block.release()

    def _holder(self) -> str:
        """The application name each hopgraph connection gives itself carries its pid and command."""
        row = self._db.execute(
            "SELECT a.application_name, a.xact_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objid = ? AND a.pid <> pg_backend_pid()",
            (writer_lock_key(self._db),)).fetchone()
        if not row:
            return "another process"
        return f"{row[0] or 'a client'} (since {row[1]:%Y-%m-%dT%H:%M:%S})"


def writer_lock_key(db: PgDatabase) -> int:
    """One advisory lock per store: the schema's name, hashed to a 32-bit key."""
    return zlib.crc32(f"hopgraph:{_schema(db)}".encode())
