"""Hits built by hand for the short-answer tests: a passage's title and text, found by hybrid."""

from __future__ import annotations

from hopgraph.records.retrieval import Hit, Via


def hit(chunk_id: int, title: str, text: str, via: Via | None = None) -> Hit:
    """One hit whose chunk and document ids are `chunk_id`."""
    return Hit(chunk_id, chunk_id, title, text, 0.0, "hybrid", via)


def hits(*pairs: tuple[str, str]) -> list[Hit]:
    """(title, text) pairs as hits 0, 1, 2, … in that order."""
    return [hit(i, title, text) for i, (title, text) in enumerate(pairs)]
