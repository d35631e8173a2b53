"""Chunking, measured with the embedder's own WordPiece tokenizer: paragraphs first, or token windows.

`paragraphs` (the default): a chunk never crosses a paragraph boundary (a blank line) and never
cuts a sentence. A paragraph that fits `size` tokens is one chunk; a longer one is cut between
sentences (text/sentences.py, the one splitter), and each piece after the first repeats the
previous piece's last sentences up to `overlap` tokens and `continues` the paragraph. A heading —
a short line with no closing punctuation — joins the paragraph after it. Only a single sentence
longer than `size` is cut into token windows. Why: a chunk that holds three unrelated paragraphs
has the average of their vectors and is about three things at once (docs3 in docs/BENCHMARKS.md).

`windows`: windows of `size` tokens, each starting `size - overlap` tokens after the previous one.

Chunk text is cut from the original string by character offsets, never detokenised; every
paragraph is tokenized on its own, so a long document is never tokenized in one piece.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from hopgraph.errors import InputError
from hopgraph.records.documents import Chunk, Document
from hopgraph.text.sentences import paragraph_spans, sentence_spans
from hopgraph.text.tokens import wordpiece

CHUNKERS = ("paragraphs", "windows")


def check_chunking(size: int, overlap: int, by: str = "paragraphs") -> None:
    """Refuse settings no chunker can honour, naming them."""
    if size < 1 or not 0 <= overlap < size:
        raise InputError(f"chunk size {size} / overlap {overlap}: need size ≥ 1 and 0 ≤ overlap < size")
    if by not in CHUNKERS:
        raise InputError(f"chunking {by!r}: use one of {', '.join(CHUNKERS)}")


def chunk_document(doc: Document, doc_key: str, size: int = 600, overlap: int = 100,
                   by: str = "paragraphs") -> list[Chunk]:
    """The chunks of a document, `by` paragraphs or token windows (see the module docstring). A
    chunk of a paged document (PDF) carries the page its first character is on."""
    check_chunking(size, overlap, by)
    pieces = list(_paragraph_pieces(doc.text, size, overlap) if by == "paragraphs"
                  else _window_pieces(doc.text, size, overlap))
    if not pieces:  # blank text: one empty chunk, as before, so the document still exists
        pieces = [_Piece(0, len(doc.text), 0, False)]
    return [Chunk(doc_key=doc_key, ord=i, text=doc.text[p.start:p.end], n_tokens=p.n_tokens,
                  page=doc.page_at(p.start), continues=p.continues) for i, p in enumerate(pieces)]


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    n_tokens: int
    continues: bool


@dataclass(frozen=True)
class _Tokens:
    """Token offsets of a span of text (absolute): any sub-span's token count by bisection."""

    starts: list[int]
    ends: list[int]

    @staticmethod
    def of(text: str, start: int, end: int) -> _Tokens:
        offsets = wordpiece().encode(text[start:end], add_special_tokens=False).offsets
        return _Tokens([start + a for a, _ in offsets], [start + b for _, b in offsets])

    def count(self, start: int, end: int) -> int:
        return max(0, bisect_right(self.ends, end) - bisect_left(self.starts, start))


def _window_pieces(text: str, size: int, overlap: int) -> Iterator[_Piece]:
    tokens = _Tokens.of(text, 0, len(text))
    n = len(tokens.starts)
    if n <= size:
        yield _Piece(0, len(text), n, False)
        return
    for ord_, first in enumerate(range(0, n - overlap, size - overlap)):
        last = min(first + size, n) - 1
        yield _Piece(tokens.starts[first], tokens.ends[last], last - first + 1, ord_ > 0)


def _paragraph_pieces(text: str, size: int, overlap: int) -> Iterator[_Piece]:
    for start, end in paragraph_spans(text):
        tokens = _Tokens.of(text, start, end)
        if len(tokens.starts) <= size:
            yield _Piece(start, end, len(tokens.starts), False)
        else:
            yield from _pack_sentences(text, start, end, tokens, size, overlap)


def _pack_sentences(text: str, start: int, end: int, tokens: _Tokens, size: int,
                    overlap: int) -> Iterator[_Piece]:
    """A long paragraph as runs of whole sentences of at most `size` tokens; each run after the
    first starts with the previous run's last sentences that fit in `overlap` tokens."""
    sentences = [window for a, b in sentence_spans(text[start:end])
                 for window in _windows(start + a, start + b, tokens, size)]
    first, pieces = 0, 0
    while first < len(sentences):
        last = first
        while last + 1 < len(sentences) and tokens.count(sentences[first][0], sentences[last + 1][1]) <= size:
            last += 1
        a, b = sentences[first][0], sentences[last][1]
        yield _Piece(a, b, tokens.count(a, b), pieces > 0)
        pieces += 1
        if last + 1 >= len(sentences):
            return
        back = last + 1  # the next run starts with as many trailing sentences as `overlap` allows
        while back - 1 > first and tokens.count(sentences[back - 1][0], sentences[last][1]) <= overlap:
            back -= 1
        first = back


def _windows(start: int, end: int, tokens: _Tokens, size: int) -> list[tuple[int, int]]:
    """A sentence longer than `size` tokens as windows of `size` tokens (the one cut inside a sentence)."""
    if tokens.count(start, end) <= size:
        return [(start, end)]
    first, last = bisect_left(tokens.starts, start), bisect_right(tokens.ends, end)
    return [(tokens.starts[i], tokens.ends[min(i + size, last) - 1]) for i in range(first, last, size)]
