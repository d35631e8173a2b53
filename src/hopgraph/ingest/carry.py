"""Facts across a re-chunking: an edited file's chunks are all deleted and inserted anew, and a renamed
file is a withdrawal plus an addition, so without this every fact stated in them would go with them.

`carry_facts` is the policy the store applies inside the index run's transaction (store.apply calls
it with plain records, and never imports kg):

- Same text, same facts: the facts of a deleted chunk go to a new chunk of the same change with the
  same text hash — of the same document, or of the one that succeeds it (a renamed file), first; else
  of any document. Further new chunks with that text get a copy.
- Imported triples are stated by a document, not a chunk: when their chunk's text is gone but the
  document goes on (an edit, or a rename that changed the text too), each is attached again to the
  new chunk of that document that states it (`stating_row`, the rule `import-triples` uses), never
  to another document's chunk.
- Anything else (a chunk whose text is gone, a withdrawn document's imported facts) is dropped: an
  extractor reads the new chunk as it reads any chunk it has not read.

A parse fact read with its neighbours' help (kg/build.py PARSE_CONTEXT) keeps the reading made beside
its old neighbours when only a neighbour changed: same text, same facts, as for every extractor.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from hopgraph.records.knowledge import (
    IMPORTED,
    CarriedFacts,
    ChunkFacts,
    NewChunk,
    OldChunk,
    RawEntity,
    RawRelation,
    Rechunking,
)


def stating_row(texts: Sequence[str], subject: str, object_: str) -> int:
    """Which of a document's chunk texts states a fact: the first that mentions both ends, else
    either, else the first."""
    folded = [text.casefold() for text in texts]
    for wanted in ((subject, object_), (subject,), (object_,), ()):
        for row, text in enumerate(folded):
            if all(w.casefold() in text for w in wanted):
                return row
    raise ValueError("a document has at least one chunk")


def carry_facts(change: Rechunking) -> CarriedFacts:
    """The facts the new chunks of `change` get from the deleted ones (the rules above)."""
    heirs = successors(change)
    chunks_of = _chunks_by_document(change.inserted)
    paired = _pair(change, heirs)
    out = _Rows()
    for old in (c for c in change.deleted if c.facts):
        heir = heirs.get(old.doc_id)
        new = paired.get(old.id)
        for facts in old.facts:
            if new is not None and (not _imported(facts) or new.doc_id == heir):
                out.add(replace(facts, chunk_id=new.id))
            elif _imported(facts) and heir is not None:
                out.attach(facts, chunks_of[heir])
            else:
                out.changed = True  # dropped: the new text is read anew
    _copy_to_the_rest(change, paired, out)
    # Unchanged means every fact went whole to its paired chunk: nothing dropped, copied, merged or attached.
    return CarriedFacts(out.rows(), None if out.changed else {old: new.id for old, new in paired.items()})


def successors(change: Rechunking) -> dict[int, int]:
    """Old document id → the document that goes on for it: itself when it was re-chunked in place (an
    edit), else the document this change created that shares most chunk texts with it, at least half
    of its own (a renamed file, maybe edited too; a shared boilerplate paragraph makes no successor),
    else the one it created under the same title."""
    heirs = {doc: doc for doc in {c.doc_id for c in change.inserted} if doc not in change.created}
    texts_of: dict[int, set[str]] = defaultdict(set)
    for chunk in change.inserted:
        if chunk.doc_id in change.created:
            texts_of[chunk.doc_id].add(chunk.text_hash)
    old_texts: dict[int, set[str]] = defaultdict(set)
    for old in change.deleted:
        old_texts[old.doc_id].add(old.text_hash)
    titled = Counter(change.created[new] for new in texts_of)
    for doc, title in change.withdrawn.items():
        shared = {new: len(old_texts[doc] & texts) for new, texts in texts_of.items()}
        best = max(shared, key=lambda new: (shared[new], change.created[new] == title, -new), default=None)
        if best is not None and shared[best] and 2 * shared[best] >= len(old_texts[doc]):
            heirs[doc] = best
        elif titled[title] == 1:
            heirs[doc] = next(new for new in texts_of if change.created[new] == title)
    return heirs


def _pair(change: Rechunking, heirs: dict[int, int]) -> dict[int, NewChunk]:
    """Deleted chunk id → the new chunk with its text that takes its facts: within the successor
    first (so a renamed file's chunks pair with each other, in order), then anywhere in the change."""
    free: dict[str, list[NewChunk]] = defaultdict(list)
    for chunk in change.inserted:
        free[chunk.text_hash].append(chunk)
    paired: dict[int, NewChunk] = {}
    with_facts = [c for c in change.deleted if c.facts]
    for in_lineage in (True, False):
        for old in (c for c in with_facts if c.id not in paired):
            candidates = free[old.text_hash]
            found = next((c for c in candidates if not in_lineage or c.doc_id == heirs.get(old.doc_id)), None)
            if found is not None:
                candidates.remove(found)
                paired[old.id] = found
    return paired


def _copy_to_the_rest(change: Rechunking, paired: dict[int, NewChunk], out: _Rows) -> None:
    """New chunks left unpaired whose text a deleted chunk stated facts about get a copy of them
    (imported ones aside: another document did not state them)."""
    taken = {new.id for new in paired.values()}
    first: dict[str, OldChunk] = {}
    for old in change.deleted:
        if old.facts:
            first.setdefault(old.text_hash, old)
    for chunk in change.inserted:
        old = first.get(chunk.text_hash)
        if old is not None and chunk.id not in taken:
            for facts in old.facts:
                if not _imported(facts):
                    out.add(replace(facts, chunk_id=chunk.id))
                    out.changed = True


def _chunks_by_document(chunks: Sequence[NewChunk]) -> dict[int, list[NewChunk]]:
    grouped: dict[int, list[NewChunk]] = defaultdict(list)
    for chunk in chunks:
        grouped[chunk.doc_id].append(chunk)
    return grouped


def _imported(facts: ChunkFacts) -> bool:
    return facts.extractor.startswith(IMPORTED)


@dataclass
class _Rows:
    """Facts rows by (chunk, extractor), the table's key: two that meet are merged into one row."""

    by_key: dict[tuple[int, str], ChunkFacts] = field(default_factory=dict)
    changed: bool = False  # a fact was dropped, copied, merged or attached anew

    def add(self, facts: ChunkFacts) -> None:
        key = (facts.chunk_id, facts.extractor)
        known = self.by_key.get(key)
        if known is None:
            self.by_key[key] = facts
            return
        self.changed = True
        self.by_key[key] = replace(known, entities=known.entities + facts.entities,
                                   relations=known.relations + facts.relations, skipped=known.skipped + facts.skipped)

    def attach(self, facts: ChunkFacts, chunks: list[NewChunk]) -> None:
        """Each imported relation to the chunk of the document that states it, with its two ends as
        entities (how kg/extractors/triples.py writes an imported fact)."""
        self.changed = True
        texts = [c.text for c in chunks]
        for relation in facts.relations:
            chunk = chunks[stating_row(texts, relation.source, relation.target)]
            self.add(ChunkFacts(chunk.id, facts.extractor, _ends(relation), [relation]))

    def rows(self) -> list[ChunkFacts]:
        return list(self.by_key.values())


def _ends(relation: RawRelation) -> list[RawEntity]:
    return [RawEntity(relation.source, relation.source_type), RawEntity(relation.target, relation.target_type)]
