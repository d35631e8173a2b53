"""The gazetteer kept in the store's meta: what is saved is what a reopened store gives back."""

from __future__ import annotations

from pathlib import Path

from hopgraph.ingest.gazetteer import save_gazetteer, stored_gazetteer
from hopgraph.records.names import GazetteerEntry
from hopgraph.store.sqlite import SQLiteStore


def test_the_gazetteer_round_trips_through_the_store(tmp_path: Path) -> None:
    gazetteer = [GazetteerEntry("Corvane Brake Systems", ("CBS", "Corvane Brakes"), "ORG", "org:corvane")]
    store = SQLiteStore(str(tmp_path / "g.db"))
    assert stored_gazetteer(store) == []
    save_gazetteer(store, gazetteer)
    assert stored_gazetteer(store) == gazetteer
    store.close()
    reopened = SQLiteStore(str(tmp_path / "g.db"))
    assert stored_gazetteer(reopened) == gazetteer
    reopened.close()
