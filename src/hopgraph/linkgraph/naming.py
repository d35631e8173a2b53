"""Where names come from when indexing: titles that are names, and the text, decided per document.

`names_from` (setting `names_from`, `--names-from` on `index` and `eval`):
- "auto" (default): every chunk's names from its text (linkgraph/aboutness.py), plus the title of
  each document whose title is a name — PDF/DOCX metadata, a Markdown or DOCX heading, an HTML
  <title>, or a record's title (HotpotQA, {title, text}) that its text mentions; never a file
  stem or an id ("doc-00042"). A record whose title is a name is named by that title alone:
  re-checked by half (issue 21 part 2, docs/BENCHMARKS.md), names read from the text of titled
  records cost `ppr` five questions of HotpotQA's half A. A heading or metadata title is often
  no subject's name as written ("Plant Profile: Anvaya Foundry, Hosur"), so those documents keep
  their text's names;
- "titles": titles only (no text is parsed: the fastest, for corpora titled by their subjects);
- "text": the text only; "both": every title and the text.
Paragraph readings are cached in the store by text hash (like vectors) and read before the write
transaction, so the slow model never runs while the store is locked.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from hopgraph.errors import InputError
from hopgraph.linkgraph import aboutness
from hopgraph.linkgraph.links import title_is_named_in
from hopgraph.records.documents import ChunkTable, rows_by_document
from hopgraph.store.base import DocumentStore
from hopgraph.text import nlp

NAME_SOURCES = ("auto", "titles", "text", "both")


def check_source(names_from: str) -> str:
    if names_from not in NAME_SOURCES:
        raise InputError(f"names from {names_from!r}: use one of {', '.join(NAME_SOURCES)}")
    return names_from


def reads_text(names_from: str) -> bool:
    return names_from != "titles"


def title_docs(table: ChunkTable, names_from: str) -> set[int]:
    """The documents whose title is one of their names under `names_from`."""
    if names_from == "text":
        return set()
    if names_from in ("titles", "both"):
        return set(table.titles)
    rows_of_doc = rows_by_document(table.doc_ids)  # once: not a scan of every chunk per document
    return {doc for doc, title in table.titles.items()
            if _title_is_name(title, table.title_sources.get(doc, "record"),
                              [table.texts[row] for row in rows_of_doc.get(doc, [])])}


NAMING_SOURCES = frozenset({"metadata", "heading", "html"})  # titles someone wrote as the document's name


def _title_is_name(title: str, source: str, texts: Sequence[str]) -> bool:
    """A title from metadata, a heading or an HTML <title> is a name; a file stem never is; a
    record's title ("Adriana Trigiani", "doc-00042") is when its text mentions it."""
    if source != "record":
        return source in NAMING_SOURCES
    return any(title_is_named_in(title, text) for text in texts)


def paragraph_texts(texts: Sequence[str]) -> dict[str, str]:
    """Hash → text of every paragraph of the given chunk texts."""
    return {h: p for parts in aboutness.chunk_paragraphs(texts) for h, p in parts}


READ_BATCH = 2000  # chunks whose paragraphs are read, and their readings committed, at a time


def read_new_paragraphs(store: DocumentStore, texts: Iterable[str],
                        progress: Callable[[int, int], None] | None = None,
                        batch: int = READ_BATCH) -> tuple[dict[str, aboutness.Reading], int]:
    """Readings of every paragraph of `texts`: stored ones reused, new ones read and committed
    `batch` chunks at a time — so only one batch's paragraph texts are held (a big file's are
    hundreds of MB), and a run stopped half way keeps what it read. Returns the readings of all
    of them (names, not text) and how many paragraphs were parsed."""
    readings: dict[str, aboutness.Reading] = {}
    parsed = 0
    chunks = iter(texts)
    while part := list(itertools.islice(chunks, batch)):  # itertools.batched is Python 3.12
        wanted = {h: p for h, p in paragraph_texts(part).items() if h not in readings}
        stored = {h: aboutness.Reading.from_json(p)
                  for h, p in store.cached_readings(list(wanted), aboutness.VERSION).items()}
        on = None if progress is None else _running_on(progress, parsed)
        read = aboutness.read_paragraphs(wanted, stored, on)
        new = {h: r.to_json() for h, r in read.items() if h not in stored}
        if new:
            store.save_readings(new, aboutness.VERSION)
        readings.update(read)
        parsed += len(new)
    return readings, parsed


def _running_on(progress: Callable[[int, int], None], before: int) -> Callable[[int, int], None]:
    """A batch's (done, total) as the whole run's: one bar runs on across the batches instead of
    starting again at 0 every `READ_BATCH` chunks (the total grows as batches come)."""
    return lambda done, total: progress(before + done, before + total)


@dataclass
class ChunkNames:
    """What the graph builder needs: per chunk row surface → aboutness, and the titled documents."""

    about: list[dict[str, float]] | None
    titled: set[int]


def chunk_names(table: ChunkTable, names_from: str, readings: dict[str, aboutness.Reading],
                frequent: bool = False) -> ChunkNames:
    """Aboutness of every chunk from its paragraphs' readings (any paragraph not read yet is read
    here), short forms resolved over the corpus; and which titles are names. Under "auto" the
    chunks of a record whose title is a name are about nothing from their text (module docstring)."""
    titled = title_docs(table, names_from)
    if not reads_text(names_from):
        return ChunkNames(None, titled)
    named_by_title = ({doc for doc in titled if table.title_sources.get(doc, "record") == "record"}
                      if names_from == "auto" else set())
    # Per chunk only its paragraphs' hashes are kept: a copy of every paragraph's text would double
    # the text the write transaction holds; only paragraphs without a reading keep theirs.
    parts: list[list[tuple[str, str]]] = []
    missing: dict[str, str] = {}
    for text in table.texts:
        [chunk] = aboutness.chunk_paragraphs([text])
        missing.update((h, p) for h, p in chunk if h not in readings)
        parts.append([(h, "") for h, _ in chunk])
    readings = aboutness.read_paragraphs(missing, readings) if missing else readings
    continues = table.continues or [False] * len(table)
    about = aboutness.chunk_aboutness(parts, list(continues), readings, frequent)
    about = [{} if doc in named_by_title else weights for doc, weights in zip(table.doc_ids.tolist(), about,
                                                                                strict=True)]
    return ChunkNames(_with_short_forms(about, table.texts), titled)


def _with_short_forms(about: list[dict[str, float]], texts: Sequence[str]) -> list[dict[str, float]]:
    """Each chunk's names plus the shortened given names the corpus uses for them ("Tim Russert"
    for a chunk about "Timothy John Russert"), at the chunk's own weight."""
    lists = {row: list(weights) for row, weights in enumerate(about) if weights}
    resolved = nlp.short_forms(lists, texts)
    out = []
    for row, weights in enumerate(about):
        extra = [s for s in resolved.get(row, ()) if s not in weights]
        out.append({**weights, **dict.fromkeys(extra, max(weights.values()))} if extra else weights)
    return out
