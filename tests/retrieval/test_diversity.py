"""The per-document diversity cap (issue 21): at most a share of the top k from one document."""

from __future__ import annotations

from hopgraph.records.retrieval import Hit
from hopgraph.retrieval.diversity import DiversityCap, cap_per_document, exempt_document


def _hit(chunk: int, doc: int) -> Hit:
    return Hit(chunk_id=chunk, doc_id=doc, title=f"doc {doc}", text="", score=0.0, found_by="hybrid")


def _ids(hits: list[Hit]) -> list[int]:
    return [h.chunk_id for h in hits]


PROFILE = [_hit(1, 1), _hit(2, 1), _hit(3, 1), _hit(4, 1), _hit(5, 2)]  # four chunks of one profile
RANKED = [*PROFILE, _hit(6, 1), _hit(7, 3), _hit(8, 4), _hit(9, 5), _hit(10, 6)]


def test_a_documents_surplus_goes_to_the_rankers_next_hits_from_other_documents():
    capped, replaced = cap_per_document(PROFILE, RANKED, DiversityCap(share=0.4, window=2.0), top=5)
    assert _ids(capped) == [1, 2, 7, 8, 5]  # two of profile 1 kept; chunk 6 is profile 1 again, skipped
    assert replaced == 2


def test_the_share_is_at_least_one_place():
    assert DiversityCap(share=0.1).limit(5) == 1 and DiversityCap(share=0.4).limit(5) == 2
    assert DiversityCap(share=0.6).limit(5) == 3


def test_a_replacement_comes_only_from_within_the_window():
    capped, replaced = cap_per_document(PROFILE, RANKED, DiversityCap(share=0.4, window=1.4), top=5)  # 7 deep
    assert _ids(capped) == [1, 2, 7, 4, 5] and replaced == 1  # chunk 8 is 8th: the surplus chunk 4 stays


def test_the_one_document_the_question_names_is_exempt():
    assert cap_per_document(PROFILE, RANKED, DiversityCap(share=0.4), top=5, exempt=1) == (PROFILE, 0)
    assert exempt_document([1, 1, 1]) == 1
    assert exempt_document([1, 2]) is None and exempt_document([]) is None  # several or none: no exemption


def test_hits_already_diverse_are_unchanged():
    diverse = [_hit(1, 1), _hit(7, 3), _hit(8, 4)]
    assert cap_per_document(diverse, RANKED, DiversityCap(share=0.2), top=3) == (diverse, 0)


def test_a_document_that_fills_the_rankers_window_is_what_the_question_is_about():
    book = [_hit(i, 1) for i in range(1, 9)] + [_hit(20, 2), _hit(21, 3)]  # a novel: 8 of the first 10
    cap = DiversityCap(share=0.2, window=2.0, dominant=0.5)
    assert cap_per_document(book[:5], book, cap, top=5) == (book[:5], 0)
    capped, replaced = cap_per_document(book[:5], book, DiversityCap(share=0.2, window=2.0), top=5)
    assert _ids(capped) == [1, 20, 21, 4, 5] and replaced == 2  # without the exemption: pushed into other books
