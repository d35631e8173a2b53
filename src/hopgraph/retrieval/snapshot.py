"""Search snapshots: what `build_search_index` makes, kept on disk for one state of the store.

Opening a store for search used to read every chunk text, vector and link and re-tokenise every
text for BM25 — seconds at thousands of chunks, minutes at a million. A snapshot keeps the results
as files a later process maps instead of rebuilding: the vectors as one float32 `.npy` matrix
(memory-mapped), bm25s's own index files (memory-mapped), the link CSR arrays, the chunk table's
row-aligned columns and its titles and sources, the question-name lookups (retrieval/name_lookup.py),
all as arrays — nothing is unpickled, nothing rebuilt per name — and the ANN
index of a large store. Chunk texts stay in the store: a snapshot's table reads the texts of the
rows a query touches (retrieval/lazy_table.py).

A snapshot is derived data, valid for one state of the store only. Every index or remove run
writes a fresh `generation` (ingest/pipeline.py) in the same transaction as its change, and the
snapshot's directory is named by a hash of the generation, the embedder's name and `FORMAT`, so a
snapshot of another state is never found. It lives next to a file store (`<store>.search/<key>/`)
or, for a store at a URL, in the user cache directory; an in-memory store has none. It is written
to a temporary directory and renamed into place, so a crash leaves no half snapshot under a valid
name; one that does not read back (a truncated or damaged file, a manifest that does not match) is
rebuilt, not trusted. A store written before generations existed is built in memory, as before,
until its next index run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
import uuid
from pathlib import Path

import numpy as np
from platformdirs import user_cache_dir
from scipy import sparse

from hopgraph.retrieval.index import SearchIndex, build_search_index
from hopgraph.retrieval.lazy_table import StringTable, lazy_table, table_columns
from hopgraph.retrieval.name_lookup import load_names, save_names
from hopgraph.retrieval.vector_search import AnnSearch, ann_size, build_ann, load_ann, save_ann
from hopgraph.store.backends import backend_for
from hopgraph.store.base import DocumentStore
from hopgraph.store.processes import alive
from hopgraph.text.bm25 import KeywordIndex
from hopgraph.text.embed import Embedder

FORMAT = 4  # bump when the files change: older snapshots are then simply not found
ANN_FILE = "ann.faiss"
COLUMNS = ("ids", "doc_ids", "ords", "pages", "continues")
STRINGS = ("titles", "sources", "title_sources", "name_surfaces")  # int → str tables (lazy_table.StringTable)


def snapshot_root(location: str) -> Path | None:
    """Where a store's snapshots live: beside a file, under the user cache for a URL, none in memory."""
    if location == ":memory:" or location.startswith("file::memory:") or not location:
        return None
    if not backend_for(location).file:  # a server store (PostgreSQL): no file to stand beside
        digest = hashlib.sha256(location.encode()).hexdigest()
        return Path(user_cache_dir("hopgraph")) / "search" / digest
    return Path(location + ".search")


def snapshot_key(generation: str, embedder_name: str) -> str:
    return hashlib.sha256(f"{FORMAT}\n{generation}\n{embedder_name}".encode()).hexdigest()[:24]


def load_search_index(store: DocumentStore, embedder: Embedder, ann_threshold: int | None = None) -> SearchIndex:
    """The search view of the store: read from its snapshot when one matches the store's state,
    else built and (for a store with a generation) saved. Vector search goes through an ANN index
    when the store holds at least `ann_threshold` chunks (None: never)."""
    root = snapshot_root(store.location)
    generation = store.meta().get("generation")
    if root is None or generation is None:
        index = build_search_index(store, embedder)
        _attach_ann(index, ann_threshold, None)
        return index
    key = snapshot_key(generation, embedder.name)
    directory = root / key
    started = time.perf_counter()
    index = read_snapshot(directory, key, store, embedder)
    if index is not None:
        index.load_seconds["snapshot_read"] = time.perf_counter() - started
        _attach_ann(index, ann_threshold, directory)
        return index
    index = build_search_index(store, embedder)
    ann = _attach_ann(index, ann_threshold, None)
    written = time.perf_counter()
    with contextlib.suppress(OSError):  # a read-only folder or a full disk: search works from memory
        write_snapshot(index, root, key, {"generation": generation, "embedder": embedder.name}, ann)
    index.load_seconds["snapshot_write"] = time.perf_counter() - written
    return index


def _attach_ann(index: SearchIndex, threshold: int | None, directory: Path | None) -> object | None:
    """Route vector search through an ANN index if the store is large enough: the snapshot's, or one
    built now (and added to the snapshot, when there is one, for the next process)."""
    if threshold is None or len(index) < threshold:
        return None
    started = time.perf_counter()
    ann = _read_ann(directory / ANN_FILE, len(index)) if directory else None
    if ann is not None:
        index.load_seconds["ann_load"] = time.perf_counter() - started
    else:
        ann = build_ann(index.vectors)
        index.load_seconds["ann_build"] = time.perf_counter() - started
        if directory is not None:
            with contextlib.suppress(OSError):
                _save_atomically(ann, directory / ANN_FILE)
    index.vector_search = AnnSearch(ann, index.vectors)
    return ann


def _read_ann(path: Path, rows: int) -> object | None:
    if not path.is_file():
        return None
    try:
        ann = load_ann(str(path))
    except RuntimeError:  # faiss reports a damaged file as a RuntimeError
        return None
    return ann if ann_size(ann) == rows else None


def _save_atomically(ann: object, path: Path) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}")
    save_ann(ann, str(temp))
    _fsync(temp)
    os.replace(temp, path)


def write_snapshot(index: SearchIndex, root: Path, key: str, meta: dict[str, str], ann: object | None = None) -> Path:
    """Save the index under `root/key` (a temporary directory renamed into place); older snapshots
    of the store are removed once the new one is in place."""
    root.mkdir(parents=True, exist_ok=True)
    temp = root / f".tmp-{os.getpid()}-{uuid.uuid4().hex}"
    final, aside = root / key, root / f".tmp-{os.getpid()}-old-{uuid.uuid4().hex}"
    temp.mkdir()
    try:
        _write_files(index, temp, ann)
        files = {str(p.relative_to(temp)): p.stat().st_size for p in sorted(temp.rglob("*")) if p.is_file()}
        manifest = {"format": FORMAT, **meta, "rows": len(index), "dim": int(index.vectors.shape[1]),
                    "files": files}
        for name in files:
            _fsync(temp / name)
        (temp / "manifest.json").write_text(json.dumps(manifest, indent=1))  # last: its presence means complete
        _fsync(temp / "manifest.json")
        if final.exists():  # one that did not read back (else we would not be writing), or a racing
            # writer's twin of ours: moved aside whole (a rename), so the name never holds a mix
            final.rename(aside)
        temp.rename(final)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(aside, ignore_errors=True)
    _remove_others(root, key)
    return final


def _write_files(index: SearchIndex, directory: Path, ann: object | None) -> None:
    for name, column in table_columns(index.table).items():
        np.save(directory / f"{name}.npy", column)
    np.save(directory / "vectors.npy", np.ascontiguousarray(index.vectors, dtype=np.float32))
    index.keyword.save(directory / "bm25")
    links, weights = index.links, index.link_weights
    np.save(directory / "link_indptr.npy", links.indptr)
    np.save(directory / "link_indices.npy", links.indices)
    np.save(directory / "link_names.npy", links.data)
    np.save(directory / "link_weights.npy", weights.data)
    table = index.table
    strings = {"titles": table.titles, "sources": table.sources, "title_sources": table.title_sources,
               "name_surfaces": index.name_surfaces}
    for name, mapping in strings.items():
        for part, array in StringTable.of(mapping).arrays().items():
            np.save(directory / f"{name}.{part}.npy", array)
    save_names(directory, index.question_names.surfaces, index.rows_named, index.display_names)
    if ann is not None:
        save_ann(ann, str(directory / ANN_FILE))


def read_snapshot(directory: Path, key: str, store: DocumentStore, embedder: Embedder) -> SearchIndex | None:
    """The index saved under `directory`, or None when it is missing or does not read back whole."""
    try:
        manifest = json.loads((directory / "manifest.json").read_text())
        if manifest.get("format") != FORMAT or snapshot_key(manifest["generation"], manifest["embedder"]) != key:
            return None
        for name, size in manifest["files"].items():
            if (directory / name).stat().st_size != size:
                return None
        return _read_files(directory, int(manifest["rows"]), store, embedder)
    except (OSError, ValueError, KeyError, TypeError, EOFError, IndexError, UnicodeDecodeError):
        return None  # missing, truncated, or not what we wrote: rebuilt, never trusted


def _read_files(directory: Path, rows: int, store: DocumentStore, embedder: Embedder) -> SearchIndex | None:
    # read whole, not mapped: a few bytes a row, indexed row by row all through a query
    columns = {name: np.load(directory / f"{name}.npy") for name in COLUMNS}
    vectors = np.load(directory / "vectors.npy", mmap_mode="r")
    indptr = np.load(directory / "link_indptr.npy")
    indices = np.load(directory / "link_indices.npy")
    link_names, link_weights = np.load(directory / "link_names.npy"), np.load(directory / "link_weights.npy")
    if (any(len(c) != rows for c in columns.values()) or vectors.shape[0] != rows or len(indptr) != rows + 1
            or not len(indices) == len(link_names) == len(link_weights) == indptr[-1]):
        return None
    strings = {name: StringTable(*(np.load(directory / f"{name}.{part}.npy") for part in ("keys", "offsets", "blob")))
               for name in STRINGS}
    question_names, rows_named, display_names, partial_names = load_names(directory)
    keyword = KeywordIndex.load(directory / "bm25")
    if keyword.n != rows:
        return None
    return SearchIndex(
        table=lazy_table(store.chunk_texts, columns, strings), vectors=vectors, keyword=keyword,
        links=sparse.csr_matrix((link_names, indices, indptr), shape=(rows, rows)),
        link_weights=sparse.csr_matrix((link_weights, indices, indptr), shape=(rows, rows)),
        name_surfaces=strings["name_surfaces"], question_names=question_names,  # type: ignore[arg-type]
        rows_named=rows_named, display_names=display_names,  # type: ignore[arg-type]
        partial_names=partial_names, embedder=embedder, origin="snapshot")


def _fsync(path: Path) -> None:
    """Flush a file to disk before the rename that makes it trusted (a crash must not leave a
    snapshot whose names are in place but whose bytes are not)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_others(root: Path, key: str) -> None:
    """Drop the store's other snapshots (older states) and temporary directories of dead writers."""
    for entry in root.iterdir():
        if entry.name == key:
            continue
        if entry.name.startswith(".tmp-"):
            pid = entry.name.split("-")[1]
            if pid.isdigit() and alive(int(pid)):
                continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
