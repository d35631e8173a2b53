"""Numeric columns read by one binary `COPY … TO STDOUT`, straight into numpy arrays.

A replica reads the whole name graph each time another process writes (retrieval/database_index.py):
at 1M chunks about 4M links and 1M aboutness rows, where fetching them as Python tuples and turning
those into arrays took about 4 s of a 7.9 s reload (6.6 s with this module, docs/BENCHMARKS.md).
PostgreSQL's binary COPY format gives each row as a 16-bit field count and, per field, a 32-bit
length and the value's bytes, all big-endian
(https://www.postgresql.org/docs/current/sql-copy.html, "Binary Format"). When every field is a
NOT NULL `bigint` or `double precision` a row has a fixed width, so the whole answer is one numpy
record array; the columns are copied out of it in native byte order.
"""

from __future__ import annotations

import numpy as np

from hopgraph.errors import HopgraphError
from hopgraph.store.postgres.connection import PgDatabase

_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_HEADER = len(_SIGNATURE) + 4 + 4  # the signature, the flags field, the header extension's length (0)
_TRAILER = 2  # a field count of -1
_KINDS = {"i": ">i8", "f": ">f8"}  # bigint, double precision


def row_type(kinds: str) -> np.dtype:
    """The packed record of one row whose fields are `kinds` ("i" bigint, "f" double precision)."""
    fields = [("count", ">i2")]
    for at, kind in enumerate(kinds):
        fields += [(f"length{at}", ">i4"), (f"value{at}", _KINDS[kind])]
    return np.dtype(fields)


def parse(data: bytes | bytearray | memoryview, kinds: str) -> list[np.ndarray]:
    """The columns of a binary COPY answer whose rows are `kinds`; a NULL or a field of another
    width (a length other than 8) is an error, never a misread column."""
    record = row_type(kinds)
    body = len(data) - _HEADER - _TRAILER
    if bytes(data[: len(_SIGNATURE)]) != _SIGNATURE or body < 0 or body % record.itemsize:
        raise HopgraphError(f"a binary COPY answer of {len(data)} bytes is not rows of {kinds!r}: "
                            f"a NULL, or a field that is not 8 bytes")
    rows = np.frombuffer(data, dtype=record, count=body // record.itemsize, offset=_HEADER)
    if (rows["count"] != len(kinds)).any() or any((rows[f"length{at}"] != 8).any() for at in range(len(kinds))):
        raise HopgraphError(f"a binary COPY answer is not rows of {kinds!r}: a NULL, or a field that is not 8 bytes")
    native = {"i": np.int64, "f": np.float64}
    return [rows[f"value{at}"].astype(native[kind]) for at, kind in enumerate(kinds)]


def copied(db: PgDatabase, query: str, kinds: str) -> list[np.ndarray]:
    """The columns of `query`'s rows (every field NOT NULL, `kinds` as in `row_type`)."""
    data = bytearray()
    with db.connection.cursor() as cursor, cursor.copy(f"COPY ({query}) TO STDOUT (FORMAT BINARY)") as copy:
        for block in copy:
            data += block
    return parse(data, kinds)
