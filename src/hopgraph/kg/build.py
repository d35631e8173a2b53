"""Building the knowledge graph: facts (LLM, NLP, imported triples) → resolution → graph → store.

The graph is derived data: rebuilt from all stored facts whenever facts or documents change, in
one transaction, so a withdrawn document's relations disappear with its chunks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from hopgraph.config import Settings
from hopgraph.ingest.pipeline import index_documents
from hopgraph.kg.extractors.concepts import EXTRACTOR as CONCEPTS
from hopgraph.kg.extractors.concepts import concept_facts
from hopgraph.kg.extractors.triples import read_triples, source_texts, triple_facts
from hopgraph.kg.graph import assemble
from hopgraph.kg.resolution import resolve
from hopgraph.progress import counter
from hopgraph.records.documents import ChunkTable, Document, rows_by_document
from hopgraph.records.knowledge import ChunkFacts
from hopgraph.records.names import GazetteerEntry
from hopgraph.store.base import DocumentStore, KnowledgeStore, Store
from hopgraph.text.embed import Embedder


@dataclass
class GraphReport:
    entities: int
    relations: int
    reviews: int
    facts: int


@dataclass
class ImportReport:
    triples: int
    skipped: list[str]
    new_documents: int
    graph: GraphReport


def save_gazetteer(store: DocumentStore, gazetteer: Sequence[GazetteerEntry]) -> None:
    store.set_meta({"gazetteer": json.dumps([asdict(e) for e in gazetteer])})


def stored_gazetteer(store: DocumentStore) -> list[GazetteerEntry]:
    raw = json.loads(store.meta().get("gazetteer", "[]"))
    return [GazetteerEntry(e["name"], tuple(e["aliases"]), e["type"], e["id"]) for e in raw]


def mentions_of(facts: Sequence[ChunkFacts]) -> list[tuple[str, str, str]]:
    """Every (name, type, description) the facts mention, relation endpoints included."""
    found = []
    for item in facts:
        found += [(e.name, e.type, e.description) for e in item.entities]
        for r in item.relations:
            found += [(r.source, r.source_type, ""), (r.target, r.target_type, "")]
    return found


def build_graph(store: Store, embedder: Embedder | None, settings: Settings) -> GraphReport:
    """Resolve every stored fact into a knowledge graph and replace the stored one."""
    facts = store.load_facts()
    resolution = resolve(mentions_of(facts), stored_gazetteer(store), embedder,
                         settings.merge_auto, settings.merge_review, store.merge_decisions())
    graph = assemble(facts, resolution, store.chunk_docs())
    store.replace_knowledge_graph(graph, resolution.reviews)
    return GraphReport(len(graph.entities), len(graph.relations), len(resolution.reviews), len(facts))


def import_triples(store: Store, embedder: Embedder, path: Path, settings: Settings,
                   quiet: bool = True) -> ImportReport:
    """Attach each triple to the chunk of its source document that states it (or a new document)."""
    parsed = read_triples(path)
    generated_source = f"triples:{path.name}"
    doc_of = _documents_by_name(store.chunk_table(), skip_source=generated_source)
    texts = source_texts(parsed.triples)
    # Sources that are no document get one, rewritten on every import of this file (and withdrawn
    # when the file no longer names them), so each edge cites a chunk that states it.
    missing = [Document(title=s, text=texts[s], source=generated_source) for s in texts if s not in doc_of]
    index_documents(store, embedder, missing, settings, gazetteer=stored_gazetteer(store), quiet=quiet,
                    replace_sources={generated_source})
    table = store.chunk_table()
    doc_of = _documents_by_name(table)
    rows_of_doc = rows_by_document(table.doc_ids)
    chunk_of = {i: _stating_chunk(table, rows_of_doc[doc_of[t.source]], t.subject, t.object)
                for i, t in enumerate(parsed.triples)}
    store.replace_facts(f"triples:{path.name}", triple_facts(parsed.triples, chunk_of, f"triples:{path.name}"))
    return ImportReport(len(parsed.triples), parsed.skipped, len(missing), build_graph(store, embedder, settings))


def _documents_by_name(table: ChunkTable, skip_source: str | None = None) -> dict[str, int]:
    """Document id by title, by file name and by file stem of its source (`audit-07.md`, `audit-07`)."""
    names: dict[str, int] = {}
    documents = [(d, t) for d, t in table.titles.items() if table.sources.get(d) != skip_source]
    for doc_id, title in documents:
        names.setdefault(title, doc_id)
    for doc_id, _ in documents:
        names.setdefault(Path(table.sources[doc_id]).name, doc_id)
        names.setdefault(Path(table.sources[doc_id]).stem, doc_id)
    return names


def _stating_chunk(table: ChunkTable, rows: list[int], subject: str, object_: str) -> int:
    """The first of the document's chunk rows that mentions both ends, else either, else the first."""
    for wanted in ((subject, object_), (subject,), (object_,), ()):
        for row in rows:
            text = table.texts[row].casefold()
            if all(w.casefold() in text for w in wanted):
                return int(table.ids[row])
    raise AssertionError("a document always has a chunk")



def extract_concepts(store: KnowledgeStore, quiet: bool = True) -> None:
    """The no-LLM concept graph's facts for every chunk not yet processed, committed in batches so an
    interruption resumes (the graph itself is rebuilt by `build_graph`)."""
    stale = [e for e in store.extractors() if e.split("-")[0] == "nlp" and e != CONCEPTS]
    store.drop_facts(stale)  # facts of an older concept extractor would duplicate the new ones
    pending = store.pending_chunks(CONCEPTS)
    with counter("concepts", quiet) as update:
        for start in range(0, len(pending), 256):
            batch = pending[start : start + 256]
            store.save_facts(concept_facts([c.chunk_id for c in batch], [c.text for c in batch]))
            update(start + len(batch), len(pending))
