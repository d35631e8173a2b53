"""Indexing as a named sequence of steps: read → plan → embed → write (names + links inside).

Embeddings are committed as they are computed (a cache keyed by text hash), so an interrupted run
resumes where it stopped; the visible index changes in one transaction at the end, so a crash or
Ctrl-C leaves the previous index intact.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import chain
from pathlib import Path

from hopgraph.config import Settings
from hopgraph.errors import InputError, UnreadableFile
from hopgraph.ingest.chunking import chunk_document, iter_chunks
from hopgraph.ingest.readers import expand_paths, read_documents
from hopgraph.ingest.spill import SpilledChunks
from hopgraph.linkgraph.links import build_name_graph
from hopgraph.progress import bar_over, counter
from hopgraph.records.documents import Chunk, ChunkTable, Document, DocumentChange, RunRecord, Skip, utc_now
from hopgraph.records.names import GazetteerEntry
from hopgraph.store import Store
from hopgraph.text import nlp  # spaCy itself is imported only when texts are parsed
from hopgraph.text.embed import Embedder

EMBED_COMMIT_EVERY = 256  # texts per committed batch of vectors: the most a crash can lose
LOOKUP_EVERY = 500  # text hashes per look-up of stored vectors
GRAPH_VERSION = 2  # bump when names/links are built differently, so stores rebuild their graph
NAME_SOURCES = ("titles", "extracted")  # where documents' names come from (see names_for_documents)
EXTRACTED_META = "extracted_names"  # meta key: {"version", "names": {first-chunk text hash: names}}


@dataclass
class IndexReport:
    documents: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    withdrawn: int = 0
    chunks_written: int = 0
    embedded: int = 0
    names: int = 0
    names_filtered: int = 0
    links: int = 0
    skipped: list[Skip] = field(default_factory=list)  # files that could not be read, with the reason
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.withdrawn)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _hasher(doc: Document, chunking: str) -> hashlib._Hash:
    """The hash of what decides a document's chunks, before its text: the chunking, and for a PDF
    where pages start (the same text could break into pages differently)."""
    pages = f"\n{json.dumps(doc.pages)}" if doc.pages else ""
    return hashlib.sha256(f"{chunking}{pages}\n".encode())


def content_hash_of(doc: Document, chunking: str) -> str:
    """What decides a document's chunks: its text, the chunking, and where a PDF's pages start.
    Hashed block by block (a big file is read again for it, not held). Text-only documents keep
    the hash they had before pages existed, so upgrading hopgraph re-chunks nothing."""
    digest = _hasher(doc, chunking)
    for block in doc.blocks():
        digest.update(block.encode("utf-8"))
    return digest.hexdigest()


@dataclass
class ReadResult:
    """What step 1 found: the documents, and the files it skipped with the reason."""

    documents: list[Document]
    skipped: list[Skip]


SKIPS_NAMED = 5  # reasons named in the one-line error when every file was skipped


def read_paths(paths: Sequence[str | Path], quiet: bool = True) -> ReadResult:
    """Step 1: every document in the given files and folders.

    A file that cannot be read (empty, encrypted, broken, not UTF-8, no text layer, …) is skipped
    with its reason and the others are read; nothing is written for it, and what an earlier run
    indexed from it stays. A missing path or an unsupported file named directly is a usage error;
    so is a run where every file was skipped: there is nothing to index."""
    files = expand_paths(paths)
    docs: list[Document] = []
    skipped: list[Skip] = []
    for path in bar_over(files, "reading", quiet):
        try:
            docs.extend(read_documents(path))
        except UnreadableFile as err:
            skipped.append(Skip(err.path, err.reason))
    if files and len(skipped) == len(files):
        raise InputError(_nothing_readable(skipped))
    return ReadResult(docs, skipped)


def _nothing_readable(skipped: list[Skip]) -> str:
    if len(skipped) == 1:  # one file named directly: its own error, as before skips existed
        return f"{skipped[0].path}: {skipped[0].reason}"
    named = "; ".join(f"{s.path}: {s.reason}" for s in skipped[:SKIPS_NAMED])
    more = f"; and {len(skipped) - SKIPS_NAMED} more" if len(skipped) > SKIPS_NAMED else ""
    return f"nothing to index: all {len(skipped)} files were skipped — {named}{more}"


def plan_change(store: Store, docs: Sequence[Document], settings: Settings,
                replace_sources: bool | Collection[str] = True,
                skipped: Sequence[Skip] = ()) -> tuple[DocumentChange, IndexReport]:
    """Step 2: which documents are new or changed (chunked here) and which are withdrawn.

    `replace_sources`: True withdraws the documents of every source read here that are gone from it;
    a collection of sources does that for exactly those (even if none of their documents remain).
    A skipped file is no source read here: its documents stay as an earlier run indexed them."""
    report = IndexReport(documents=len(docs), skipped=list(skipped))
    change = DocumentChange()
    active = store.active_documents()
    chunking = f"{settings.chunk_tokens}/{settings.chunk_overlap}"
    for doc in docs:
        content_hash = content_hash_of(doc, chunking)
        known = active.get((doc.source, doc.title))
        if known and known.content_hash == content_hash:
            if known.title_source != doc.title_source:
                change.retitled.append((known.id, doc.title_source))
                report.updated += 1
            else:
                report.unchanged += 1
            continue
        chunks = chunk_rows(doc, settings, chunking, content_hash)
        if chunks is None:
            report.skipped.append(Skip(doc.source, "the file changed while it was being indexed; index it again"))
            continue
        change.upserts.append((doc, content_hash, chunks))
        report.added += known is None
        report.updated += known is not None
    if replace_sources:  # a document gone from a file that was re-read is withdrawn
        present = {(d.source, d.title) for d in docs}
        sources = {d.source for d in docs} if replace_sources is True else set(replace_sources)
        change.withdrawn = [stored.id for key, stored in active.items()
                            if key[0] in sources and key not in present]
        report.withdrawn = len(change.withdrawn)
    return change, report


def chunk_rows(doc: Document, settings: Settings, chunking: str,
               content_hash: str) -> Collection[tuple[Chunk, str]] | None:
    """The document's chunks with their text hashes. A big file's go to a temporary file as they
    are made, and the text read for them is hashed again: None if it is not the text that was
    hashed (the file changed in between), so no chunks of another text go in under its hash."""
    if doc.reread is None:
        return [(c, sha(c.text)) for c in chunk_document(doc, doc.title, settings.chunk_tokens,
                                                          settings.chunk_overlap)]
    digest = _hasher(doc, chunking)

    def hashed_blocks() -> Iterator[str]:
        for block in doc.blocks():
            digest.update(block.encode("utf-8"))
            yield block

    reading = replace(doc, reread=hashed_blocks)
    chunks = SpilledChunks((c, sha(c.text)) for c in iter_chunks(reading, doc.title, settings.chunk_tokens,
                                                                 settings.chunk_overlap))
    if digest.hexdigest() != content_hash:
        chunks.close()
        return None
    return chunks


def embed_missing(store: Store, embedder: Embedder, change: DocumentChange, quiet: bool = True,
                  include_stored: bool = False) -> int:
    """Step 3: embed the chunk texts that have no stored vector for this model; commit in batches.

    `include_stored` also covers chunks already in the store (after switching embedders). The
    chunks are read twice (which texts lack a vector, then those texts), never all held at once."""
    table = store.chunk_table() if include_stored else None
    todo = _unembedded(store, embedder.name, (h for h, _ in _texts(change, table)))
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


def graph_signature(settings: Settings, gazetteer: Sequence[GazetteerEntry], names_from: str = "titles") -> str:
    parts: list[object] = [GRAPH_VERSION, settings.min_name_chars, settings.max_name_doc_share,
                           [asdict(e) for e in gazetteer]]
    if names_from != "titles":  # titled stores keep the signature they always had
        parts.append([names_from, nlp.EXTRACTOR_VERSION])
    return sha(json.dumps(parts))


def first_chunks(table: ChunkTable, skip_docs: Collection[int] = ()) -> dict[int, tuple[str, str]]:
    """Document id → (text hash, text) of its first chunk (chunks are stored in document order)."""
    firsts: dict[int, tuple[str, str]] = {}
    for doc, text_hash, text in zip(table.doc_ids.tolist(), table.text_hashes, table.texts, strict=True):
        if doc not in skip_docs:
            firsts.setdefault(doc, (text_hash, text))
    return firsts


def extract_names(texts: dict[str, str], cached: dict[str, list[str]], quiet: bool = True) -> dict[str, list[str]]:
    """The about-names of every text (text hash → text) not in `cached`, added to a copy of it.

    A document's names come from its first chunk: where text says what it is about."""
    todo = {h: t for h, t in texts.items() if h not in cached}
    names = dict(cached)
    if todo:
        with counter("names from text", quiet) as update:
            found = nlp.concepts(list(todo.values()), progress=update)
        names.update({h: nlp.about_names(t, c) for (h, t), c in zip(todo.items(), found, strict=True)})
    return names


def _cached_names(meta: dict[str, str]) -> dict[str, list[str]]:
    try:
        stored = json.loads(meta.get(EXTRACTED_META, "{}"))
    except json.JSONDecodeError:
        return {}
    return stored.get("names", {}) if stored.get("version") == nlp.EXTRACTOR_VERSION else {}


def _names_before_write(store: Store, change: DocumentChange, meta: dict[str, str],
                        quiet: bool) -> dict[str, list[str]]:
    """Extracted names for every first chunk the index will hold, computed outside the write
    transaction (the NLP model is slow) and reusing the names stored with the last build."""
    active = store.active_documents()
    replaced = set(change.withdrawn) | {active[(doc.source, doc.title)].id for doc, _, _ in change.upserts
                                        if (doc.source, doc.title) in active}
    texts = dict(first_chunks(store.chunk_table(), replaced).values())
    for _, _, chunks in change.upserts:  # chunks come in order: the first is all that is read
        first = next(iter(chunks), None)
        if first is not None and first[0].ord == 0:
            texts[first[1]] = first[0].text
    return extract_names(texts, _cached_names(meta), quiet)


def index_documents(store: Store, embedder: Embedder, docs: Sequence[Document], settings: Settings,
                    gazetteer: Sequence[GazetteerEntry] = (), quiet: bool = True,
                    replace_sources: bool | Collection[str] = True, names_from: str = "titles",
                    skipped: Sequence[Skip] = ()) -> IndexReport:
    """Steps 2–4 for documents already read (`skipped`: the files step 1 could not read, for the
    report). Unchanged content with unchanged settings writes nothing.

    `names_from`: "titles" names each document by its title; "extracted" by the names its first
    chunk is about (hopgraph.text.nlp, no LLM), stored as names of kind "extracted"."""
    if names_from not in NAME_SOURCES:
        raise InputError(f"names from {names_from!r}: use one of {', '.join(NAME_SOURCES)}")
    started = time.perf_counter()
    change, report = plan_change(store, docs, settings, replace_sources, skipped)
    signature = graph_signature(settings, gazetteer, names_from)
    meta = store.meta()
    new_embedder = meta.get("embedder") not in (None, embedder.name)
    if change.empty and meta.get("graph_signature") == signature and not new_embedder:
        report.seconds = {"total": time.perf_counter() - started}
        return report
    planned = time.perf_counter()
    report.embedded = embed_missing(store, embedder, change, quiet, include_stored=new_embedder)
    embedded = time.perf_counter()
    graph_seconds = 0.0
    extracted = _names_before_write(store, change, meta, quiet) if names_from == "extracted" else None
    named = time.perf_counter()
    new_meta = {"graph_signature": signature, "embedder": embedder.name}

    def build(table):  # type: ignore[no-untyped-def]
        nonlocal graph_seconds
        t = time.perf_counter()
        doc_names = None
        if extracted is not None:
            firsts = first_chunks(table)
            # Normally all computed above; a chunk that appeared since is extracted here.
            names = extract_names(dict(firsts.values()), extracted, quiet=True)
            doc_names = nlp.short_forms({doc: names[h] for doc, (h, _) in firsts.items()}, table.texts)
            new_meta[EXTRACTED_META] = json.dumps({"version": nlp.EXTRACTOR_VERSION,
                                                   "names": {h: names[h] for h, _ in firsts.values()}})
        graph = build_name_graph(table, gazetteer, settings.min_name_chars, settings.max_name_doc_share,
                                 doc_names)
        graph_seconds = time.perf_counter() - t
        report.names = len(graph.names)
        report.names_filtered = sum(1 for n in graph.names if n.filtered)
        report.links = len(graph.links)
        return graph

    report.chunks_written = sum(len(chunks) for _, _, chunks in change.upserts)
    # `build` runs inside apply, before the meta is written, so the names it stores go in with it.
    store.apply(change, build, new_meta, RunRecord("index", utc_now(), lambda: json.dumps(asdict(report))))
    report.seconds = {"plan": planned - started, "embed": embedded - planned,
                      "names_links": graph_seconds, "total": time.perf_counter() - started}
    if extracted is not None:
        report.seconds["extract_names"] = named - embedded
    return report
