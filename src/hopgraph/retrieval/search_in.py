"""Where a store's search index comes from — the `search_in` setting, one registry of loaders.

- "snapshot": every vector and the BM25 matrix in process, built once per state of the store and
  kept on disk for the next process (retrieval/snapshot.py);
- "database": the store ranks vectors and keywords itself, the process holds only the chunk
  columns and the name graph (retrieval/database_index.py); PostgreSQL only;
- "auto" (the default): "database" for a store that can rank (a `postgresql://` store), else
  "snapshot". A replica of a PostgreSQL store then starts in seconds with nothing local, where a
  snapshot of a million chunks takes minutes and gigabytes per host (issue 24); its both-found
  cost is measured in docs/BENCHMARKS.md.
"""

from __future__ import annotations

from collections.abc import Callable

from hopgraph.errors import InputError
from hopgraph.retrieval.database_index import load_database_index
from hopgraph.retrieval.index import SearchIndex
from hopgraph.retrieval.snapshot import load_search_index
from hopgraph.store.base import DocumentStore, RankingStore
from hopgraph.text.embed import Embedder

AUTO = "auto"
# (store, embedder, ann_threshold) → index; the ANN threshold means the same to every loader:
# exact vector search below that many chunks, an ANN index from there on
Loader = Callable[[DocumentStore, Embedder, int], SearchIndex]

LOADERS: dict[str, Loader] = {"snapshot": load_search_index, "database": load_database_index}


def resolve(store: DocumentStore, search_in: str) -> str:
    """The loader's name for this store: `search_in` itself, or what "auto" means for the store."""
    choice = search_in.strip().lower()
    if choice == AUTO:
        return "database" if isinstance(store, RankingStore) else "snapshot"
    if choice not in LOADERS:
        raise InputError(f"setting search_in={search_in!r} is unknown; use one of {', '.join([AUTO, *LOADERS])}")
    return choice


def open_search_index(store: DocumentStore, embedder: Embedder, search_in: str, ann_threshold: int) -> SearchIndex:
    """The store's search index, from where `search_in` (the setting) says."""
    return LOADERS[resolve(store, search_in)](store, embedder, ann_threshold)
