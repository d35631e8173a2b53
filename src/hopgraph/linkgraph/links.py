"""Mention links: chunk A → chunk B when A mentions a (kept) name that B is *about*.

A name is about chunks with a weight: a title names every chunk of its document (1.0); a name from
the text is about the chunks whose paragraphs say so (linkgraph/aboutness.py: subject 1.0, a
continued paragraph 0.5, a repeated entity 0.25). A link carries the weight of its target's
aboutness, so a link to where X is the subject outranks a link to where X is named twice. A chunk
about a name makes no link through it (a document's chunks never link to each other through its
title), but two chunks of one document about different things link like any two chunks.

The link remembers the name that made it, so a hit found through it can say
`Big Stone Gap (film) → Adriana Trigiani via "Adriana Trigiani"`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from hopgraph.linkgraph.names import (
    MentionFinder,
    apply_filters,
    find_mentions,
    gazetteer_names,
    names_for_documents,
    strip_disambiguation,
)
from hopgraph.records.documents import ChunkTable, rows_by_document
from hopgraph.records.names import GazetteerEntry, GraphRows, Name


@dataclass(frozen=True)
class LinkRows:
    """Links as parallel arrays of chunk rows, the name (id) that made each link, and its weight."""

    source: np.ndarray
    target: np.ndarray
    name_id: np.ndarray
    weight: np.ndarray

    def __len__(self) -> int:
        return len(self.source)


def build_weighted_links(mention_rows: np.ndarray, mention_names: np.ndarray,
                         name_about: dict[int, dict[int, float]]) -> LinkRows:
    """Every (mentioning chunk → chunk the name is about) pair, once, at the highest weight any of
    its names gives it; never from a chunk that is itself about the name.

    `mention_names` holds name ids; `name_about` maps a kept name id to {chunk row: aboutness}."""
    best: dict[tuple[int, int], tuple[float, int]] = {}
    for row, name_id in zip(mention_rows.tolist(), mention_names.tolist(), strict=True):
        about = name_about.get(name_id, {})
        if row in about:
            continue
        for target, weight in about.items():
            if (row, target) not in best or weight > best[(row, target)][0]:
                best[(row, target)] = (weight, name_id)
    pairs = list(best.items())
    return LinkRows(np.asarray([s for (s, _), _ in pairs], dtype=np.int64),
                    np.asarray([t for (_, t), _ in pairs], dtype=np.int64),
                    np.asarray([n for _, (_, n) in pairs], dtype=np.int64),
                    np.asarray([w for _, (w, _) in pairs], dtype=np.float64))


def build_links(mention_rows: np.ndarray, mention_names: np.ndarray, name_docs: dict[int, Sequence[int]],
                chunk_docs: np.ndarray) -> LinkRows:
    """Links to every chunk of the named documents (weight 1): names that stand for whole documents."""
    rows_of_doc = rows_by_document(chunk_docs)
    about = {name: {row: 1.0 for doc in docs for row in rows_of_doc.get(doc, ())} for name, docs in name_docs.items()}
    return build_weighted_links(mention_rows, mention_names, about)


def in_link_counts(links: LinkRows, n_chunks: int) -> np.ndarray:
    """How many chunks link to each chunk: the measure of a hub."""
    return np.bincount(links.target, minlength=n_chunks)


def title_is_named_in(title: str, text: str) -> bool:
    """Does the text name its title (without a disambiguation suffix)? Written out, case-insensitively,
    or with more than half of its words: "Andrew Wiggins" is named by "Andrew Christian Wiggins", a
    title that is a name is; an id ("doc-00042") or a file stem ("audit-2025-031") is not."""
    bare = strip_disambiguation(title)
    if MentionFinder([bare], casefold=True).find(text):
        return True
    words = re.findall(r"[^\W_]+", bare.casefold())
    present = set(re.findall(r"[^\W_]+", text.casefold()))
    return 2 * sum(word in present for word in words) > len(words)


def text_names(table: ChunkTable, chunk_about: Sequence[dict[str, float]]) -> list[Name]:
    """One name per (surface, document) from the chunks' aboutness, about those chunks."""
    grouped: dict[tuple[str, int], dict[int, float]] = defaultdict(dict)
    for row, (doc, about) in enumerate(zip(table.doc_ids.tolist(), chunk_about, strict=True)):
        for surface, weight in about.items():
            if surface.strip():
                grouped[(surface.strip(), doc)][row] = weight
    return [Name(surface, doc, "text", about=rows) for (surface, doc), rows in grouped.items()]


def graph_names(table: ChunkTable, gazetteer: Sequence[GazetteerEntry] = (),
                chunk_about: Sequence[dict[str, float]] | None = None,
                title_docs: Collection[int] | None = None) -> list[Name]:
    """Titles (of `title_docs`, default all documents) about every chunk of their document, the
    names from the text, then gazetteer names (about every chunk of the document they attach to, by
    its title or one of its names)."""
    rows_of_doc = rows_by_document(table.doc_ids)
    # a title of white space alone names nothing (the finder holds no empty surface)
    titled = {d: t for d, t in table.titles.items() if (title_docs is None or d in title_docs) and t.strip()}
    names = [n for n in names_for_documents(titled) if n.kind == "title"]
    names += text_names(table, chunk_about) if chunk_about is not None else []
    if gazetteer:
        own: dict[int, list[str]] = defaultdict(list)
        for name in names:
            own[name.doc_id].append(name.surface)  # type: ignore[index]
        names += gazetteer_names(table.titles, gazetteer, ((surface, doc) for doc, surfaces in own.items()
                                                           for surface in surfaces))
    for name in names:
        if not name.about and name.doc_id is not None:
            name.about = {row: 1.0 for row in rows_of_doc.get(name.doc_id, ())}
    return _merge_same(names)


def _merge_same(names: list[Name]) -> list[Name]:
    """One name per (surface, document, kind group): a title that the text also names stays one
    name, about each chunk at the larger weight."""
    merged: dict[tuple[str, int | None, bool], Name] = {}
    for name in names:
        key = (name.surface, name.doc_id, name.kind == "gazetteer")
        if key not in merged:
            merged[key] = name
            continue
        kept = merged[key]
        for row, weight in name.about.items():
            kept.about[row] = max(weight, kept.about.get(row, 0.0))
    return list(merged.values())


def build_name_graph(table: ChunkTable, gazetteer: Sequence[GazetteerEntry] = (), min_name_chars: int = 3,
                     max_name_doc_share: float = 0.01, chunk_about: Sequence[dict[str, float]] | None = None,
                     title_docs: Collection[int] | None = None) -> GraphRows:
    """Names, what they are about, their mentions in every chunk, and the links those mentions make.

    `chunk_about` (per chunk row: surface → aboutness) adds names from the text; `title_docs` limits
    the documents whose title is a name (default: all; see graph_names)."""
    names = graph_names(table, gazetteer, chunk_about, title_docs)
    finder = MentionFinder(name.surface for name in names)
    mention_rows, mention_surfaces = find_mentions(finder, table.texts)
    apply_filters(names, finder, mention_surfaces, mention_rows, len(table), min_name_chars, max_name_doc_share)
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
    about = {p: name.about for p, name in enumerate(names) if not name.filtered and name.doc_id is not None}
    links = build_weighted_links(np.asarray(rows, dtype=np.int64), np.asarray(positions, dtype=np.int64), about)
    ids = table.ids
    return GraphRows(
        names=names,
        mentions=list(dict.fromkeys(zip(ids[rows].tolist(), positions, strict=True))),
        links=list(zip(ids[links.source].tolist(), ids[links.target].tolist(), links.name_id.tolist(),
                       links.weight.tolist(), strict=True)),
        abouts=[(int(ids[row]), position, weight) for position, name in enumerate(names)
                for row, weight in name.about.items()])
