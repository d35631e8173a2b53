"""Mention links: chunk A → chunk B when A mentions a (kept) name of B's document.

The link remembers the name that made it, so a hit found through it can say
`Big Stone Gap (film) → Adriana Trigiani via "Adriana Trigiani"`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hopgraph.linkgraph.names import MentionFinder, apply_filters, find_mentions, names_for_documents
from hopgraph.records.documents import ChunkTable, rows_by_document
from hopgraph.records.names import GazetteerEntry, GraphRows


@dataclass(frozen=True)
class LinkRows:
    """Links as parallel arrays of chunk rows and the name (id) that made each link."""

    source: np.ndarray
    target: np.ndarray
    name_id: np.ndarray

    def __len__(self) -> int:
        return len(self.source)


def build_links(mention_rows: np.ndarray, mention_names: np.ndarray, name_docs: dict[int, Sequence[int]],
                chunk_docs: np.ndarray) -> LinkRows:
    """Every (mentioning chunk → chunk of the named document) pair, once, never within one document.

    `mention_names` holds name ids; `name_docs` maps a kept name id to the documents it names.
    """
    rows_of_doc = rows_by_document(chunk_docs)
    seen: set[tuple[int, int]] = set()
    source, target, names = [], [], []
    for row, name_id in zip(mention_rows.tolist(), mention_names.tolist(), strict=True):
        own_doc = chunk_docs[row]
        for doc in name_docs.get(name_id, ()):
            if doc == own_doc:
                continue
            for target_row in rows_of_doc.get(doc, ()):
                if (row, target_row) not in seen:
                    seen.add((row, target_row))
                    source.append(row)
                    target.append(target_row)
                    names.append(name_id)
    as_array = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
    return LinkRows(as_array(source), as_array(target), as_array(names))


def in_link_counts(links: LinkRows, n_chunks: int) -> np.ndarray:
    """How many chunks link to each chunk: the measure of a hub."""
    return np.bincount(links.target, minlength=n_chunks)


def build_name_graph(table: ChunkTable, gazetteer: Sequence[GazetteerEntry] = (), min_name_chars: int = 3,
                     max_name_doc_share: float = 0.01, doc_names: dict[int, Sequence[str]] | None = None) -> GraphRows:
    """Names of every document, their mentions in every chunk, and the links those mentions make.

    `doc_names` (document id → names) replaces the titles as the documents' names (see names_for_documents)."""
    names = names_for_documents(table.titles, gazetteer, doc_names)
    finder = MentionFinder(name.surface for name in names)
    mention_rows, mention_surfaces = find_mentions(finder, table.texts)
    apply_filters(names, finder, mention_surfaces, table.doc_ids[mention_rows], len(table.titles),
                  min_name_chars, max_name_doc_share)
    # Several names can share a surface (two documents both called "Big Stone Gap").
    positions_of_surface: dict[int, list[int]] = defaultdict(list)
    surface_index = {surface: i for i, surface in enumerate(finder.surfaces)}
    for position, name in enumerate(names):
        positions_of_surface[surface_index[name.surface]].append(position)
    rows, positions = [], []
    for row, surface in zip(mention_rows.tolist(), mention_surfaces.tolist(), strict=True):
        for position in positions_of_surface[surface]:
            rows.append(row)
            positions.append(position)
    name_docs = {p: [name.doc_id] for p, name in enumerate(names) if not name.filtered and name.doc_id is not None}
    links = build_links(np.asarray(rows, dtype=np.int64), np.asarray(positions, dtype=np.int64),
                        name_docs, table.doc_ids)
    ids = table.ids
    return GraphRows(
        names=names,
        mentions=list(dict.fromkeys(zip(ids[rows].tolist(), positions, strict=True))),
        links=list(zip(ids[links.source].tolist(), ids[links.target].tolist(), links.name_id.tolist(),
                       strict=True)))
