"""Step 3 of indexing: embed the chunk texts that have no stored vector for the embedder's model.

Vectors are a cache keyed by (text hash, model), committed in batches as they are computed, so an
interrupted run resumes where it stopped. The chunks are read twice (which texts lack a vector,
then those texts), never all held at once: a big file's chunks wait in a temporary file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

from hopgraph.progress import counter
from hopgraph.records.documents import ChunkTable, DocumentChange
from hopgraph.store import Store
from hopgraph.text.embed import Embedder

EMBED_COMMIT_EVERY = 256  # texts per committed batch of vectors: the most a crash can lose
LOOKUP_EVERY = 500  # text hashes per look-up of stored vectors


def embed_missing(store: Store, embedder: Embedder, change: DocumentChange, quiet: bool = True,
                  include_stored: bool = False, recompute: bool = False) -> int:
    """Step 3: embed the chunk texts that have no stored vector for this model; commit in batches.

    `include_stored` also covers chunks already in the store (after switching embedders);
    `recompute` embeds them even when a vector is stored (`index --reembed`: other weights under
    the same name), replacing it. The chunks are read twice (which texts lack a vector, then those
    texts), never all held at once."""
    table = store.chunk_table() if include_stored or recompute else None
    hashes = (h for h, _ in _texts(change, table))
    todo = set(hashes) if recompute else _unembedded(store, embedder.name, hashes)
    total = len(todo)
    with counter("embedding", quiet) as update:
        batch: dict[str, str] = {}
        for text_hash, text in _texts(change, table):
            if text_hash in todo:
                batch[text_hash] = text
                todo.discard(text_hash)
            if len(batch) == EMBED_COMMIT_EVERY or (batch and not todo):
                _embed_batch(store, embedder, batch)
                batch = {}
                update(total - len(todo), total)
        _embed_batch(store, embedder, batch)
    return total


def _embed_batch(store: Store, embedder: Embedder, batch: dict[str, str]) -> None:
    """Embed texts (hash → text) and commit their vectors: a crash loses at most this batch."""
    if batch:
        vectors = embedder.embed(list(batch.values()))
        store.save_vectors(dict(zip(batch, vectors, strict=True)), embedder.name)


def _texts(change: DocumentChange, table: ChunkTable | None) -> Iterator[tuple[str, str]]:
    """(text hash, text) of every chunk of the change, then of the stored `table` if given."""
    for _, _, chunks in change.upserts:
        for chunk, text_hash in chunks:
            yield text_hash, chunk.text
    if table is not None:
        yield from zip(table.text_hashes, table.texts, strict=True)


def _unembedded(store: Store, model: str, hashes: Iterable[str]) -> set[str]:
    """The hashes with no stored vector for `model`, looked up a few hundred at a time."""
    seen: set[str] = set()
    missing: set[str] = set()
    group: list[str] = []
    for text_hash in chain(hashes, [None]):
        if text_hash is not None and text_hash not in seen:
            seen.add(text_hash)
            group.append(text_hash)
        if group and (text_hash is None or len(group) == LOOKUP_EVERY):
            missing.update(set(group) - set(store.cached_vectors(group, model)))
            group = []
    return missing
