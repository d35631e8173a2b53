"""What a SQL store holds, counted: shared by the SQL backends (`hopgraph stats`)."""

from __future__ import annotations

import json
from abc import abstractmethod
from typing import Any

from hopgraph.records.documents import utc_now
from hopgraph.records.stats import StoreCounts, StoredRun
from hopgraph.store.sql.tables import Tables

# One statement of scalar subqueries: one round trip to a server, one consistent snapshot of the rows.
COUNTS = """SELECT
    (SELECT count(*) FROM documents WHERE withdrawn_at IS NULL),
    (SELECT count(*) FROM documents WHERE withdrawn_at IS NOT NULL),
    (SELECT count(*) FROM chunks),
    (SELECT count(*) FROM names),
    (SELECT count(*) FROM names WHERE filtered <> ''),
    (SELECT count(*) FROM links),
    (SELECT count(DISTINCT chunk_id) FROM facts),
    (SELECT count(*) FROM entities),
    (SELECT count(*) FROM relations),
    (SELECT count(*) FROM relations WHERE superseded_by IS NOT NULL),
    (SELECT count(*) FROM merge_reviews WHERE status = 'pending'),
    (SELECT count(*) FROM communities),
    (SELECT coalesce(max(level) + 1, 0) FROM communities),
    (SELECT count(*) FROM community_reports)"""


class StatsTables(Tables):
    def counts(self) -> StoreCounts:
        return StoreCounts(*(int(value) for value in self._db.execute(COUNTS).fetchone()))

    def recent_runs(self, limit: int = 5) -> list[StoredRun]:
        """The last `limit` runs, newest first."""
        rows = self._db.execute("SELECT id, command, started_at, finished_at, stats FROM runs "
                                "ORDER BY id DESC LIMIT ?", (int(limit),)).fetchall()
        return [StoredRun(run_id, command, started, finished, _stats(stats))
                for run_id, command, started, finished, stats in rows]

    def record_run(self, command: str, started_at: str, summary: dict[str, Any]) -> None:
        """One line of the run log for a command that is not an index run (which logs itself, in its
        own transaction)."""
        with self._transaction():
            self._db.execute("INSERT INTO runs (command, started_at, finished_at, stats) VALUES (?, ?, ?, ?)",
                             (command, started_at, utc_now(), json.dumps(summary, default=str)))

    @abstractmethod
    def disk_bytes(self) -> dict[str, int]:
        """Bytes the backend keeps on disk, by part (a file and its WAL; a schema's tables)."""


def _stats(text: str) -> dict[str, object]:
    """A run's stats are JSON (an index report); a line that is not is kept as it is."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"text": text}
    return value if isinstance(value, dict) else {"value": value}
