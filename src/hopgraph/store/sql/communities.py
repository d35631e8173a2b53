"""The community tables, shared by the SQL backends: the community tree and the reports written about it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from hopgraph.records.communities import Community, CommunityReport, CommunityTree, Finding
from hopgraph.store.sql.tables import UPSERT_META, Tables


class CommunityTables(Tables):
    """The community tree of the current graph, and reports kept by content hash."""

    def replace_communities(self, tree: CommunityTree, meta: dict[str, str] | None = None) -> None:
        """One transaction: the tree replaces the previous one (reports are kept, by hash), with the
        `meta` that describes it (the partition record the next change is measured against)."""
        with self._transaction():
            self._db.executemany(UPSERT_META, list((meta or {}).items()))
            self._db.execute("DELETE FROM community_members")
            self._db.execute("DELETE FROM communities")
            self._db.executemany("INSERT INTO communities (id, level, parent, hash) VALUES (?, ?, ?, ?)",
                                 [(c.id, c.level, c.parent, c.hash) for c in tree.communities])
            self._db.executemany("INSERT INTO community_members (community_id, entity_id) VALUES (?, ?)",
                                 [(c.id, e) for c in tree.communities for e in c.entities])

    def community_tree(self) -> CommunityTree | None:
        """The stored tree, or None when none was built for the current graph."""
        rows = self._db.execute("SELECT id, level, parent, hash FROM communities ORDER BY id").fetchall()
        if not rows:
            return None
        communities = {i: Community(i, level, parent, [], hash=h) for i, level, parent, h in rows}
        for community_id, entity_id in self._db.execute(
                "SELECT community_id, entity_id FROM community_members ORDER BY community_id, entity_id"):
            communities[community_id].entities.append(entity_id)
        for community in communities.values():
            if community.parent is not None:
                communities[community.parent].children.append(community.id)
        return CommunityTree(list(communities.values()))

    def save_reports(self, reports: Sequence[CommunityReport], model: str | None = None,
                     dropped: Sequence[str] = ()) -> None:
        """One transaction: these reports are stored, and `model`'s reports of the `dropped` hashes
        (communities that no longer exist) deleted."""
        with self._transaction():
            self._db.executemany("DELETE FROM community_reports WHERE hash = ? AND model = ?",
                                 [(h, model) for h in dropped])
            self._db.executemany(
                "INSERT INTO community_reports (hash, model, payload) VALUES (?, ?, ?) "
                "ON CONFLICT (hash, model) DO UPDATE SET payload = excluded.payload",
                [(r.hash, r.model, json.dumps(asdict(r))) for r in reports])

    def stored_reports(self, model: str) -> dict[str, CommunityReport]:
        """hash → report by this writer ("extractive" or a model name)."""
        return {h: _report_from_json(payload) for h, payload in self._db.execute(
            "SELECT hash, payload FROM community_reports WHERE model = ?", (model,))}

    def report_models(self) -> list[str]:
        return [row[0] for row in self._db.execute("SELECT DISTINCT model FROM community_reports ORDER BY model")]


def _report_from_json(payload: str) -> CommunityReport:
    data = json.loads(payload)
    data["findings"] = [Finding(**f) for f in data["findings"]]
    return CommunityReport(**data)
