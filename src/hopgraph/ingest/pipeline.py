"""Indexing as a named sequence of steps: read → plan → embed → write (names + links inside).

Embeddings are committed as they are computed (a cache keyed by text hash), so an interrupted run
resumes where it stopped; the visible index changes in one transaction at the end, so a crash or
Ctrl-C leaves the previous index intact.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Collection, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from hopgraph.config import Settings
from hopgraph.errors import InputError, UnreadableFile
from hopgraph.ingest import sync
from hopgraph.ingest.carry import carry_facts
from hopgraph.ingest.chunking import chunk_document, iter_chunks
from hopgraph.ingest.embedding import embed_missing
from hopgraph.ingest.readers import expand_paths, read_documents, supported
from hopgraph.ingest.spill import SpilledChunks
from hopgraph.linkgraph import aboutness, naming  # spaCy itself is imported only when texts are parsed
from hopgraph.linkgraph.links import build_name_graph
from hopgraph.progress import bar_over, counter
from hopgraph.records.documents import ActiveDocs, Chunk, ChunkTable, Document, DocumentChange, RunRecord, Skip, utc_now
from hopgraph.records.knowledge import CarriedFacts, Rechunking
from hopgraph.records.names import GazetteerEntry, GraphRows
from hopgraph.store import Store
from hopgraph.text import nlp
from hopgraph.text.embed import Embedder
from hopgraph.text.model_identity import PARSER_KEY, PARSER_NAME_KEY, STORE_KEY, weights_sha256

GRAPH_VERSION = 6  # bump when names/links are built differently, so stores rebuild their graph


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
    names_from: str = ""
    titles_as_names: int = 0  # documents of the index whose title is one of their names
    documents_indexed: int = 0  # documents in the index after the run (names are built over all of them)
    facts_carried: int = 0  # facts rows moved from deleted chunks to new ones (ingest/carry.py)
    paragraphs_read: int = 0  # paragraphs parsed for names in this run (the rest were cached)
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


def chunking_key(settings: Settings) -> str:
    """The chunking as it enters content hashes: a store chunked another way re-chunks. Token
    windows keep the key they had before paragraphs existed."""
    key = f"{settings.chunk_tokens}/{settings.chunk_overlap}"
    return key if settings.chunking == "windows" else f"{key} {settings.chunking}"


@dataclass
class ReadResult:
    """What step 1 found: the documents, the files it skipped with the reason, and the sources of
    those skipped (what an earlier run indexed from them stays)."""

    documents: list[Document]
    skipped: list[Skip]
    kept: set[str] = field(default_factory=set)


SKIPS_NAMED = 5  # reasons named in the one-line error when every file was skipped


def read_paths(paths: Sequence[str | Path], quiet: bool = True, follow_links: bool = False) -> ReadResult:
    """Step 1: every document in the given files and folders.

    A file that cannot be read (empty, encrypted, broken, not UTF-8, no text layer, …) is skipped
    with its reason and the others are read; nothing is written for it, and what an earlier run
    indexed from it stays. So is a folder's link to a file or folder outside it, unless
    `follow_links` (ingest/sync.py). A missing path or an unsupported file named directly is a usage
    error; so is a run where every file was skipped: there is nothing to index."""
    files: list[tuple[Path, str]] = []
    result = ReadResult([], [])
    for path in paths:
        if Path(path).is_dir():
            found = sync.folder_files(Path(path), supported, follow_links)
            files += found.files
            result.skipped += found.skipped
            result.kept |= found.kept
        else:
            files += [(file, str(file.resolve())) for file in expand_paths([path])]
    files = _once_each(files)
    links_skipped = len(result.skipped)
    for path, source in bar_over(files, "reading", quiet):
        if not sync.decodable(path):  # a file named directly (a folder's are skipped in folder_files)
            result.skipped.append(Skip(sync.printable(path), sync.UNDECODABLE_NAME))
            continue
        try:
            result.documents.extend(_stored_under(read_documents(path), path, source))
        except UnreadableFile as err:
            result.skipped.append(Skip(err.path, err.reason))
            result.kept.add(source)
    if result.skipped and len(result.skipped) == len(files) + links_skipped:  # every file named was skipped
        raise InputError(_nothing_readable(result.skipped))
    return result


def _once_each(files: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """The files in order, a file named twice (a link beside what it links to) only the first time."""
    first: dict[Path, tuple[Path, str]] = {}
    for path, source in files:
        first.setdefault(path.resolve(), (path, source))
    return list(first.values())


def _stored_under(docs: list[Document], path: Path, source: str) -> list[Document]:
    """The documents with the source the file is stored under: its absolute path, so `docs/a.md`
    and `./docs/a.md` are one source whatever the working folder (messages keep the path as typed)."""
    return [replace(d, source=source) if d.source == str(path) else d for d in docs]


def _nothing_readable(skipped: list[Skip]) -> str:
    if len(skipped) == 1:  # one file named directly: its own error, as before skips existed
        return f"{skipped[0].path}: {skipped[0].reason}"
    named = "; ".join(f"{s.path}: {s.reason}" for s in skipped[:SKIPS_NAMED])
    more = f"; and {len(skipped) - SKIPS_NAMED} more" if len(skipped) > SKIPS_NAMED else ""
    return f"nothing to index: all {len(skipped)} files were skipped — {named}{more}"


def plan_change(store: Store, docs: Sequence[Document], settings: Settings,
                replace_sources: bool | Collection[str] = True,
                skipped: Sequence[Skip] = (), withdraw: Collection[int] = (),
                active: ActiveDocs | None = None) -> tuple[DocumentChange, IndexReport]:
    """Step 2: which documents are new or changed (chunked here) and which are withdrawn.

    `replace_sources`: True withdraws the documents of every source read here that are gone from it;
    a collection of sources does that for exactly those (even if none of their documents remain).
    A skipped file is no source read here: its documents stay as an earlier run indexed them.
    `withdraw`: document ids withdrawn as well (`hopgraph remove`). `active`: the store's active
    documents if the caller has read them already this run (else they are read here)."""
    report = IndexReport(documents=len(docs), skipped=list(skipped))
    change = DocumentChange()
    active = store.active_documents() if active is None else active
    chunking = chunking_key(settings)
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
                            if _same_file(key[0], sources) and key not in present]
    planned = set(change.withdrawn)
    change.withdrawn += [doc_id for doc_id in dict.fromkeys(withdraw) if doc_id not in planned]
    report.withdrawn = len(change.withdrawn)
    return change, report


def _same_file(stored_source: str, sources: set[str]) -> bool:
    """Whether a stored source is one of the sources read now. Files are stored by absolute path; a
    store written before that holds them as typed (`docs/a.md`): such a source matches when it
    names the same file from here, so re-reading a folder replaces its documents, never doubles them."""
    if stored_source in sources:
        return True
    path = Path(stored_source)
    return not path.is_absolute() and path.exists() and str(path.resolve()) in sources


def chunk_rows(doc: Document, settings: Settings, chunking: str,
               content_hash: str) -> Collection[tuple[Chunk, str]] | None:
    """The document's chunks with their text hashes. A big file's go to a temporary file as they
    are made, and the text read for them is hashed again: None if it is not the text that was
    hashed (the file changed in between), so no chunks of another text go in under its hash."""
    if doc.reread is None:
        return [(c, sha(c.text)) for c in chunk_document(doc, doc.title, settings.chunk_tokens,
                                                          settings.chunk_overlap, settings.chunking)]
    digest = _hasher(doc, chunking)

    def hashed_blocks() -> Iterator[str]:
        for block in doc.blocks():
            digest.update(block.encode("utf-8"))
            yield block

    reading = replace(doc, reread=hashed_blocks)
    chunks = SpilledChunks((c, sha(c.text)) for c in iter_chunks(reading, doc.title, settings.chunk_tokens,
                                                                 settings.chunk_overlap, settings.chunking))
    if digest.hexdigest() != content_hash:
        chunks.close()
        return None
    return chunks


def graph_signature(settings: Settings, gazetteer: Sequence[GazetteerEntry]) -> str:
    parts: list[object] = [GRAPH_VERSION, settings.min_name_chars, settings.max_name_doc_share,
                           [asdict(e) for e in gazetteer], settings.names_from]
    if naming.reads_text(settings.names_from):
        parts.append(aboutness.VERSION)
    return sha(json.dumps(parts))


def index_documents(store: Store, embedder: Embedder, docs: Sequence[Document], settings: Settings,
                    gazetteer: Sequence[GazetteerEntry] = (), quiet: bool = True,
                    replace_sources: bool | Collection[str] = True,
                    skipped: Sequence[Skip] = (), withdraw: Collection[int] = (),
                    active: ActiveDocs | None = None, reembed: bool = False) -> IndexReport:
    """Steps 2–4 for documents already read (`skipped`: the files step 1 could not read, for the
    report). Unchanged content with unchanged settings writes nothing. `active`: the store's active
    documents when the caller read them this run: the run reads them once (ingest/indexing.py).
    `reembed` embeds every stored chunk again (the vectors were made by other weights).

    Names come from `settings.names_from` (linkgraph/naming.py): by default from the text of every
    chunk, plus the titles that are names, decided per document."""
    names_from = naming.check_source(settings.names_from)
    started = time.perf_counter()
    active = store.active_documents() if active is None else active
    change, report = plan_change(store, docs, settings, replace_sources, skipped, withdraw, active)
    signature = graph_signature(settings, gazetteer)
    meta = store.meta()
    new_embedder = meta.get("embedder") not in (None, embedder.name) or reembed
    if change.empty and meta.get("graph_signature") == signature and not new_embedder:
        report.seconds = {"total": time.perf_counter() - started}
        return report
    planned = time.perf_counter()
    report.embedded = embed_missing(store, embedder, change, quiet, include_stored=new_embedder, recompute=reembed)
    embedded = time.perf_counter()
    readings: dict[str, aboutness.Reading] = {}
    if naming.reads_text(names_from):  # outside the write transaction: the model is slow
        with counter("names from text", quiet) as update:
            texts = _texts_after(store, change, active)
            readings, report.paragraphs_read = naming.read_new_paragraphs(store, texts, update)
    named = time.perf_counter()
    graph_seconds = 0.0

    def build(table: ChunkTable) -> GraphRows:
        nonlocal graph_seconds
        t = time.perf_counter()
        names = naming.chunk_names(table, names_from, readings)
        graph = build_name_graph(table, gazetteer, settings.min_name_chars, settings.max_name_doc_share,
                                 names.about, names.titled)
        graph_seconds = time.perf_counter() - t
        report.names = len(graph.names)
        report.names_filtered = sum(1 for n in graph.names if n.filtered)
        report.links = len(graph.links)
        report.titles_as_names = len(names.titled)
        report.documents_indexed = len(table.titles)
        report.names_from = names_from
        return graph

    def carry(rechunking: Rechunking) -> CarriedFacts:
        carried = carry_facts(rechunking)
        report.facts_carried = len(carried.facts)
        return carried

    report.chunks_written = sum(len(chunks) for _, _, chunks in change.upserts)
    # `build` runs inside apply, before the meta is written, so the names it stores go in with it.
    # A fresh generation marks this state of the store: search snapshots (retrieval/snapshot.py)
    # of any other state are never read, and it is written in the same transaction as the change.
    store.apply(change, build, {"graph_signature": signature, "embedder": embedder.name,
                                STORE_KEY: weights_sha256(embedder), **parser_identity(),
                                "generation": uuid.uuid4().hex},
                RunRecord("remove" if withdraw and not docs else "index", utc_now(),
                          lambda: json.dumps(asdict(report))), carry)
    report.seconds = {"plan": planned - started, "embed": embedded - planned, "read_names": named - embedded,
                      "names_links": graph_seconds, "total": time.perf_counter() - started}
    return report


def _texts_after(store: Store, change: DocumentChange, active: ActiveDocs) -> Iterator[str]:
    """The chunk texts the index will hold once `change` is applied (`active`: before it): the kept
    stored ones, then the new ones streamed from their spill file, never all in a list."""
    replaced = set(change.withdrawn) | {active[(d.source, d.title)].id for d, _, _ in change.upserts
                                        if (d.source, d.title) in active}
    table = store.chunk_table()
    kept = [t for doc, t in zip(table.doc_ids.tolist(), table.texts, strict=True) if doc not in replaced]
    del table  # the kept texts only, not every column of every stored chunk
    yield from kept
    for _, _, chunks in change.upserts:
        yield from (c.text for c, _ in chunks)


def parser_identity() -> dict[str, str]:
    """The spaCy model that reads names, for the store's meta (nothing without the `nlp` extra)."""
    sha256 = nlp.model_sha256()
    return {PARSER_NAME_KEY: nlp.MODEL_PACKAGE, PARSER_KEY: sha256} if sha256 else {}
