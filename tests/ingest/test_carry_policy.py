"""The carry policy on plain records (ingest/carry.py): which new chunk takes which deleted chunk's facts."""

from __future__ import annotations

from hopgraph.ingest.carry import carry_facts, stating_row, successors
from hopgraph.records.knowledge import ChunkFacts, NewChunk, OldChunk, RawEntity, RawRelation, Rechunking

LLM = "llm:model"
TRIPLES = "triples:t.csv"


def said(chunk: int, extractor: str, *relations: tuple[str, str]) -> ChunkFacts:
    return ChunkFacts(chunk, extractor, [RawEntity(a, "ORG") for pair in relations for a in pair],
                      [RawRelation(a, "SUPPLIES", b) for a, b in relations])


def where(carried, extractor: str) -> dict[int, list[tuple[str, str]]]:
    return {f.chunk_id: [(r.source, r.target) for r in f.relations] for f in carried.facts if f.extractor == extractor}


def test_the_rule_of_import_triples_both_ends_then_either_then_the_first():
    texts = ["Intro.", "Ravik ships.", "Ravik ships to Tessaro.", "Kestrel buys."]
    assert stating_row(texts, "ravik", "TESSARO") == 2
    assert stating_row(texts, "Ravik", "Kestrel") == 1
    assert stating_row(texts, "Zephyra", "Kestrel") == 3
    assert stating_row(texts, "Zephyra", "Corvane") == 0


def test_a_rename_moves_every_fact_whole_one_chunk_to_one():
    old = [OldChunk(1, 10, "h1", (said(1, LLM, ("A", "B")), said(1, TRIPLES, ("A", "B")))), OldChunk(2, 10, "h2")]
    new = [NewChunk(5, 20, "h1", "A supplies B."), NewChunk(6, 20, "h2", "More.")]
    carried = carry_facts(Rechunking(old, new, withdrawn={10: "Doc"}, created={20: "Doc"}))
    assert carried.moved == {1: 5}
    assert where(carried, LLM) == where(carried, TRIPLES) == {5: [("A", "B")]}


def test_two_copies_of_a_text_pair_in_order_and_an_extra_copy_gets_the_facts_too():
    old = [OldChunk(1, 10, "same", (said(1, LLM, ("A", "B")),)), OldChunk(2, 10, "same", (said(2, LLM, ("C", "D")),))]
    new = [NewChunk(5, 10, "same", "x"), NewChunk(6, 10, "same", "x"), NewChunk(7, 11, "same", "x")]
    carried = carry_facts(Rechunking(old, new, created={11: "Other"}))
    assert where(carried, LLM) == {5: [("A", "B")], 6: [("C", "D")], 7: [("A", "B")]}
    assert carried.moved is None  # a chunk gained facts: the graph must be rebuilt


def test_imported_facts_stay_with_their_document_and_are_attached_again_when_their_text_changed():
    old = [OldChunk(1, 10, "h1", (said(1, TRIPLES, ("A", "B"), ("C", "D")), said(1, LLM, ("A", "B"))))]
    new = [NewChunk(5, 10, "h5", "C and D."), NewChunk(6, 10, "h6", "A and B, edited.")]
    carried = carry_facts(Rechunking(old, new))
    assert where(carried, TRIPLES) == {6: [("A", "B")], 5: [("C", "D")]}
    assert where(carried, LLM) == {}  # a changed text is read again
    assert carried.moved is None


def test_a_withdrawn_documents_imported_facts_go_but_what_its_text_says_moves_to_the_same_text():
    old = [OldChunk(1, 10, "h1", (said(1, TRIPLES, ("A", "B")), said(1, LLM, ("A", "B"))))]
    new = [NewChunk(5, 20, "h1", "A and B.")]  # another document, edited in the same run: no successor of 10
    carried = carry_facts(Rechunking(old, new, withdrawn={10: "Gone"}))
    assert where(carried, LLM) == {5: [("A", "B")]} and where(carried, TRIPLES) == {}
    assert carried.moved is None


def test_the_successor_of_a_withdrawn_document_shares_most_texts_else_its_title():
    old = [OldChunk(1, 10, "a"), OldChunk(2, 10, "b"), OldChunk(3, 11, "z")]
    new = [NewChunk(5, 20, "a", ""), NewChunk(6, 21, "a", ""), NewChunk(7, 21, "b", ""), NewChunk(8, 22, "y", "")]
    change = Rechunking(old, new, withdrawn={10: "Ten", 11: "Eleven"}, created={20: "Ten", 21: "x", 22: "Eleven"})
    assert successors(change) == {10: 21, 11: 22}


def test_a_shared_boilerplate_paragraph_makes_no_successor():
    old = [OldChunk(1, 10, "a"), OldChunk(2, 10, "b"), OldChunk(3, 10, "c"),
           OldChunk(4, 10, "footer", (said(4, TRIPLES, ("A", "B")),))]
    new = [NewChunk(5, 20, "x", "A and B."), NewChunk(6, 20, "footer", "Signed.")]
    change = Rechunking(old, new, withdrawn={10: "Deleted"}, created={20: "Unrelated"})
    assert successors(change) == {} and carry_facts(change).facts == []  # the deleted file's triple goes
