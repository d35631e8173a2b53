"""The index and remove use cases, start to end: what `HopGraph.index` and `HopGraph.remove` run.

Index: read the files and folders (pipeline.read_paths), keep a gazetteer given with `--names`,
work out which stored sources a named folder no longer holds (sync.py: a folder is the truth), then
plan, embed and write (pipeline.index_documents). Remove: the documents the targets name, withdrawn
through the same steps. Each run reads the store's active documents once and hands them down.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from hopgraph.config import Settings
from hopgraph.ingest import sync
from hopgraph.ingest.gazetteer import save_gazetteer, stored_gazetteer
from hopgraph.ingest.pipeline import IndexReport, index_documents, read_paths
from hopgraph.linkgraph.names import read_gazetteer
from hopgraph.records.documents import ActiveDocs, Document, Skip
from hopgraph.records.names import GazetteerEntry
from hopgraph.store import Store
from hopgraph.text import nlp
from hopgraph.text.embed import Embedder
from hopgraph.text.model_identity import check_store_embedder, check_store_parser


def index_paths(store: Store, embedder: Embedder, paths: Sequence[str | Path], settings: Settings,
                names_file: str | Path | None = None, follow_links: bool = False, quiet: bool = True,
                reembed: bool = False) -> IndexReport:
    """Add or refresh the files and folders; a named folder's files deleted or renamed since the
    last run are withdrawn. Unreadable files are skipped (all of them: an InputError), as are a
    folder's links to files or folders outside it unless `follow_links`. A gazetteer file
    (`names_file`) is read before anything is, and stays in force for later runs. `reembed`: every
    stored chunk is embedded again by these weights (text/model_identity.py)."""
    gazetteer = read_gazetteer(Path(names_file)) if names_file else ()
    read = read_paths(paths, quiet, follow_links)
    if gazetteer:
        save_gazetteer(store, gazetteer)
    active = store.active_documents()
    sources = {d.source for d in read.documents}
    stored = {d.source for d in active.values()}
    gone = sync.sources_gone(stored, sync.folders_named(paths), sources, read.kept)
    return add_documents(store, embedder, read.documents, settings, gazetteer, sources | gone, read.skipped,
                         quiet=quiet, active=active, reembed=reembed)


def remove_documents(store: Store, embedder: Embedder, targets: Sequence[str], settings: Settings,
                     quiet: bool = True) -> IndexReport:
    """Withdraw the documents named by id, file or folder (sync.documents_named: a target naming
    nothing stored is an error before anything is withdrawn)."""
    active = store.active_documents()
    withdraw = sync.documents_named(active.values(), targets)
    return add_documents(store, embedder, [], settings, withdraw=withdraw, quiet=quiet, active=active)


def add_documents(store: Store, embedder: Embedder, docs: Sequence[Document], settings: Settings,
                  gazetteer: Sequence[GazetteerEntry] = (), replace_sources: bool | Collection[str] = True,
                  skipped: Sequence[Skip] = (), withdraw: Collection[int] = (), quiet: bool = True,
                  active: ActiveDocs | None = None, reembed: bool = False) -> IndexReport:
    """Documents already read (an upload, a QA set's corpus) through plan, embed and write. Without
    a `gazetteer`, the one given once with `index --names` stays in force. Vectors of other weights
    never mix: a store another embedder made is refused unless `reembed`."""
    gazetteer = gazetteer or stored_gazetteer(store)
    meta = store.meta()
    if not reembed:
        check_store_embedder(meta, embedder)
    check_store_parser(meta, nlp.MODEL_PACKAGE, nlp.model_sha256())
    return index_documents(store, embedder, docs, settings, gazetteer, quiet, replace_sources, skipped, withdraw,
                           active, reembed)
