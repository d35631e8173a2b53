"""The gazetteer given once with `index --names` (read by linkgraph/names.read_gazetteer): kept in
the store's meta, so it stays in force for every later index run and for entity resolution."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from hopgraph.records.names import GazetteerEntry
from hopgraph.store.base import DocumentStore


def save_gazetteer(store: DocumentStore, gazetteer: Sequence[GazetteerEntry]) -> None:
    store.set_meta({"gazetteer": json.dumps([asdict(e) for e in gazetteer])})


def stored_gazetteer(store: DocumentStore) -> list[GazetteerEntry]:
    raw = json.loads(store.meta().get("gazetteer", "[]"))
    return [GazetteerEntry(e["name"], tuple(e["aliases"]), e["type"], e["id"]) for e in raw]
