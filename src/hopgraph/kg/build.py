"""Building the knowledge graph: facts (LLM, parse, concepts, imported triples) → resolution → graph → store.

The graph is derived data: rebuilt from all stored facts whenever facts or documents change, in
one transaction, so a withdrawn document's relations disappear with its chunks. The extractors that
need no LLM (concepts, parse) run through one seam, `run_extractors`: each over the chunks it has
not read yet, committed in batches, so an interrupted run resumes.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from hopgraph.config import Settings
from hopgraph.ingest.carry import stating_row
from hopgraph.ingest.gazetteer import stored_gazetteer
from hopgraph.ingest.pipeline import index_documents
from hopgraph.kg.extractors.concepts import EXTRACTOR as CONCEPTS
from hopgraph.kg.extractors.concepts import concept_facts
from hopgraph.kg.extractors.parse import EXTRACTOR as PARSE
from hopgraph.kg.extractors.parse import Context, parse_facts
from hopgraph.kg.extractors.triples import read_triples, source_texts, triple_facts
from hopgraph.kg.facts import CO_OCCURS, Vocabulary
from hopgraph.kg.graph import assemble
from hopgraph.kg.resolution import normalise, resolve
from hopgraph.kg.supersession import functional_set, supersede
from hopgraph.progress import counter
from hopgraph.records.dates import readable
from hopgraph.records.documents import ChunkTable, Document, rows_by_document
from hopgraph.records.knowledge import IMPORTED, ChunkFacts, RawEntity
from hopgraph.store.base import KnowledgeStore, Store
from hopgraph.text.embed import Embedder

BATCH = 256  # chunks per committed batch of a no-LLM extractor
logger = logging.getLogger("hopgraph")


@dataclass
class GraphReport:
    entities: int
    relations: int
    reviews: int
    facts: int
    typed: int = 0  # relations that state a fact (all but co-occurrence): what `paths` walks


@dataclass
class ImportReport:
    triples: int
    skipped: list[str]
    new_documents: int
    graph: GraphReport


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
    facts = stated_types(undated_when_unreadable(store.load_facts()))
    # A concept graph alone resolves all its names; beside stated facts, its names are guesses that
    # only join theirs (resolution.py).
    concepts = [f for f in facts if f.extractor == CONCEPTS]
    stated = [f for f in facts if f.extractor != CONCEPTS]
    mentions, guesses = (mentions_of(stated), mentions_of(concepts)) if stated else (mentions_of(facts), [])
    resolution = resolve(mentions, stored_gazetteer(store), embedder, settings.merge_auto, settings.merge_review,
                         store.merge_decisions(), guesses)
    graph = assemble(facts, resolution, store.chunk_docs())
    graph.relations = supersede(graph.relations, functional_set(settings.functional_relations))
    graph.index()
    store.replace_knowledge_graph(graph, resolution.reviews)
    typed = sum(r.relation != CO_OCCURS for r in graph.relations)
    return GraphReport(len(graph.entities), len(graph.relations), len(resolution.reviews), len(facts), typed)


def undated_when_unreadable(facts: Sequence[ChunkFacts]) -> list[ChunkFacts]:
    """The facts with every date no calendar holds dropped, and a warning naming one. Triples and
    `--as-of` are checked where they enter, but an extractor may have stored anything ("2024-13-45",
    year 0 from an LLM); undated, such a fact still counts, and no rebuild trips over its date."""
    unreadable: list[tuple[int, str]] = []
    kept = []
    for item in facts:
        bad = [(item.chunk_id, d) for r in item.relations for d in (r.date, r.until) if d and not readable(d)]
        unreadable += bad
        kept.append(replace(item, relations=[replace(r, date=readable(r.date), until=readable(r.until))
                                             for r in item.relations]) if bad else item)
    if unreadable:
        chunk, text = unreadable[0]
        logger.warning("hopgraph: %d stated date(s) are no calendar date and were read as undated (first: %r in "
                       "chunk %d)", len(unreadable), text, chunk)
    return kept


def stated_types(facts: Sequence[ChunkFacts]) -> list[ChunkFacts]:
    """Concept facts with the type a stated fact gives the same name (by normalised name, majority):
    spaCy's label is a guess ("Anvaya Foundry" a PERSON), and a name typed two ways would split into
    two entities, the co-occurrence edges on one and the typed relations on the other. Without
    stated facts (a concept graph alone) nothing changes."""
    votes: dict[str, Counter[str]] = {}
    for item in (f for f in facts if f.extractor != CONCEPTS):
        for name, type_, _ in mentions_of([item]):
            if type_:
                votes.setdefault(normalise(name), Counter())[type_] += 1
    if not votes:
        return list(facts)
    best = {key: counts.most_common(1)[0][0] for key, counts in votes.items()}
    typed = lambda name, type_: best.get(normalise(name), type_)  # noqa: E731
    return [replace(f, entities=[RawEntity(e.name, typed(e.name, e.type), e.description) for e in f.entities],
                    relations=[replace(r, source_type=typed(r.source, r.source_type),
                                       target_type=typed(r.target, r.target_type)) for r in f.relations])
            if f.extractor == CONCEPTS else f for f in facts]


def import_triples(store: Store, embedder: Embedder, path: Path, settings: Settings,
                   quiet: bool = True) -> ImportReport:
    """Attach each triple to the chunk of its source document that states it (or a new document)."""
    parsed = read_triples(path, Vocabulary.of(settings))
    extractor = f"{IMPORTED}{path.name}"
    generated_source = extractor
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
    store.replace_facts(extractor, triple_facts(parsed.triples, chunk_of, extractor))
    return ImportReport(len(parsed.triples), parsed.skipped, len(missing), build_graph(store, embedder, settings))


def _documents_by_name(table: ChunkTable, skip_source: str | None = None) -> dict[str, int]:
    """Document id by title, by file name and by file stem of its source (`audit-07.md`, `audit-07`),
    by its whole source path, and by the id itself (`12`, as `hopgraph remove` takes it)."""
    names: dict[str, int] = {}
    documents = [(d, t) for d, t in table.titles.items() if table.sources.get(d) != skip_source]
    for doc_id, title in documents:
        names.setdefault(title, doc_id)
    for doc_id, _ in documents:
        names.setdefault(Path(table.sources[doc_id]).name, doc_id)
        names.setdefault(Path(table.sources[doc_id]).stem, doc_id)
        names.setdefault(table.sources[doc_id], doc_id)
    for doc_id, _ in documents:
        names.setdefault(str(doc_id), doc_id)
    return names


def _stating_chunk(table: ChunkTable, rows: list[int], subject: str, object_: str) -> int:
    """The chunk of the document (its rows) that states the triple; the rule is ingest/carry.py's,
    which also re-attaches imported triples when their document is edited."""
    return int(table.ids[rows[stating_row([table.texts[row] for row in rows], subject, object_)]])


@dataclass(frozen=True)
class ChunkExtractor:
    """An extractor that reads stored chunks without an LLM. Its id (`family-version`) names its
    facts; facts of another version of the same family are dropped before it runs. With `context`,
    it also gets the whole chunks of each chunk's document around it, up to that many characters on
    each side."""
    id: str
    label: str  # the progress bar's
    read: Callable[[list[int], list[str], list[Context]], list[ChunkFacts]]
    context: int = 0


CONCEPT_EXTRACTOR = ChunkExtractor(CONCEPTS, "concepts", lambda ids, texts, _: concept_facts(ids, texts))
# The nearest chunk each side, and more up to this many characters: "it" and "the company" are named
# in the paragraph before, what a name is ("its Pithampur press shop": a place) often in the next. A
# wider window costs time for every name read (2,000: the bundled book's parse 16 s instead of 12 s, the
# same supplier scores).
PARSE_CONTEXT = 1000


def parse_extractor(vocabulary: Vocabulary, embedder: Embedder | None = None) -> ChunkExtractor:
    """Typed facts from the dependency parse, in the settings' vocabulary (an embedder maps the verbs
    the lexicon lacks)."""
    read = lambda ids, texts, contexts: parse_facts(ids, texts, vocabulary, embedder=embedder,  # noqa: E731
                                                    contexts=contexts)
    return ChunkExtractor(PARSE, "parse", read, PARSE_CONTEXT)


def run_extractors(store: Store, extractors: Sequence[ChunkExtractor], quiet: bool = True) -> None:
    """Each extractor over every chunk it has not read yet, committed in batches so an interruption
    resumes (the graph itself is rebuilt by `build_graph`)."""
    for extractor in extractors:
        family = extractor.id.rsplit("-", 1)[0]
        stale = [e for e in store.extractors() if e.rsplit("-", 1)[0] == family and e != extractor.id]
        store.drop_facts(stale)  # an older version's facts would duplicate the new ones
        pending = store.pending_chunks(extractor.id)
        around = surrounding_text(store.chunk_table(), extractor.context) if extractor.context and pending else {}
        with counter(extractor.label, quiet) as update:
            for start in range(0, len(pending), BATCH):
                batch = pending[start : start + BATCH]
                ids = [c.chunk_id for c in batch]
                store.save_facts(extractor.read(ids, [c.text for c in batch], [around.get(i, ([], [])) for i in ids]))
                update(start + len(batch), len(pending))


def surrounding_text(table: ChunkTable, budget: int) -> dict[int, Context]:
    """Chunk id → (the chunks of its document just before it, those just after it), whole chunks: the
    nearest each side, then more up to `budget` characters a side, in document order."""
    context: dict[int, Context] = {}
    for rows in rows_by_document(table.doc_ids).values():
        ordered = sorted(rows, key=lambda row: table.ords[row])
        texts = [table.texts[row] for row in ordered]
        for position, row in enumerate(ordered):
            before = _within(texts[position - 1 :: -1] if position else [], budget)[::-1]
            context[int(table.ids[row])] = (before, _within(texts[position + 1 :], budget))
    return context


def _within(texts: list[str], budget: int) -> list[str]:
    """The first text whatever its length (the nearest neighbour is the one "it" most often needs),
    then the next ones while their lengths add up to at most `budget`."""
    kept = texts[:1]
    for text in texts[1:]:
        if sum(map(len, kept)) + len(text) > budget:
            break
        kept.append(text)
    return kept


def extract_concepts(store: KnowledgeStore, quiet: bool = True) -> None:
    """The no-LLM concept graph's facts for every chunk not yet processed (resumable)."""
    run_extractors(store, [CONCEPT_EXTRACTOR], quiet)
