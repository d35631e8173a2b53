"""Chunking, measured with the embedder's own WordPiece tokenizer: paragraphs first, or token windows.

`paragraphs` (the default): a chunk never crosses a paragraph boundary (a blank line) and never
cuts a sentence. A paragraph that fits `size` tokens is one chunk; a longer one is cut between
sentences (text/sentences.py, the one splitter), and each piece after the first repeats the
previous piece's last sentences up to `overlap` tokens (as many as leave room for the next
sentence) and `continues` the paragraph. A heading — a short line with no closing punctuation —
joins the paragraph after it. Only a single sentence longer than `size` is cut into windows of
`size` tokens, ending where a word ends when one does. Why: a chunk that holds three unrelated
paragraphs has the average of their vectors and is about three things at once (docs3 in
docs/BENCHMARKS.md).

`windows`: windows of `size` tokens, each starting `size - overlap` tokens after the previous one.

The text streams through: it is read in blocks (`Document.blocks`), cut into paragraphs and slices
of at most `SLICE_CHARS` (ingest/slicing.py), tokenized a batch of those at a time, and chunks are
yielded as they are made, so memory does not grow with the document — a 200 MB file without a
blank line is chunked like any other. Chunk text is cut from the original text, never detokenised.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from hopgraph.errors import InputError
from hopgraph.ingest.slicing import Part, paragraph_parts, text_slices
from hopgraph.records.documents import Chunk, Document
from hopgraph.text.sentences import sentence_spans
from hopgraph.text.tokens import LONG_WORD_CHARS, wordpiece

CHUNKERS = ("paragraphs", "windows")
SLICE_CHARS = 1 << 16  # the most text tokenized in one piece: 64k chars, up to ~45k tokens
BATCH_CHARS = 1 << 18  # parts tokenized together: encode_batch spreads them over the cores


def check_chunking(size: int, overlap: int, by: str = "paragraphs") -> None:
    """Refuse settings no chunker can honour, naming them."""
    if size < 1 or not 0 <= overlap < size:
        raise InputError(f"chunk size {size} / overlap {overlap}: need size ≥ 1 and 0 ≤ overlap < size")
    if by not in CHUNKERS:
        raise InputError(f"chunking {by!r}: use one of {', '.join(CHUNKERS)}")


def iter_chunks(doc: Document, doc_key: str, size: int = 600, overlap: int = 100,
                by: str = "paragraphs") -> Iterator[Chunk]:
    """The chunks of a document, one at a time, `by` paragraphs or token windows (see the module
    docstring). A chunk of a paged document (PDF) carries the page its first character is on."""
    check_chunking(size, overlap, by)
    # A slice must hold more than `size` tokens, so that only a sentence longer than `size` is cut.
    slice_chars = max(SLICE_CHARS, 2 * LONG_WORD_CHARS * size)
    pieces = (_paragraph_pieces(doc.blocks(), size, overlap, slice_chars) if by == "paragraphs"
              else _window_pieces(doc.blocks(), size, overlap, slice_chars))
    made = 0
    for made, piece in enumerate(pieces, 1):
        yield Chunk(doc_key=doc_key, ord=made - 1, text=piece.text, n_tokens=piece.n_tokens,
                    page=doc.page_at(piece.start), continues=piece.continues)
    if not made:  # blank text: one empty chunk, as before, so the document still exists
        yield Chunk(doc_key=doc_key, ord=0, text=doc.text, n_tokens=0, page=doc.page_at(0))


def chunk_document(doc: Document, doc_key: str, size: int = 600, overlap: int = 100,
                   by: str = "paragraphs") -> list[Chunk]:
    """All the chunks of a document (`iter_chunks` as a list)."""
    return list(iter_chunks(doc, doc_key, size, overlap, by))


@dataclass(frozen=True)
class _Piece:
    start: int
    text: str
    n_tokens: int
    continues: bool


@dataclass(frozen=True)
class _Tokens:
    """Token offsets within one part (relative to it): any sub-span's token count by bisection."""

    starts: list[int]
    ends: list[int]
    words: list[int | None]  # the word (or piece of a long one) each token belongs to

    def count(self, start: int, end: int) -> int:
        return max(0, bisect_right(self.ends, end) - bisect_left(self.starts, start))

    def starts_word(self, i: int) -> bool:
        """Token i begins a word: a cut before it splits no word, so the text re-counts the same."""
        return i == 0 or self.words[i] != self.words[i - 1]


def _tokenized(parts: Iterable[Part]) -> Iterator[tuple[Part, _Tokens]]:
    """Each part with its tokens, encoded a batch of about BATCH_CHARS at a time."""
    batch: list[Part] = []
    chars = 0
    for part in parts:
        batch.append(part)
        chars += len(part.text)
        if chars >= BATCH_CHARS:
            yield from _encode(batch)
            batch, chars = [], 0
    yield from _encode(batch)


def _encode(parts: list[Part]) -> Iterator[tuple[Part, _Tokens]]:
    encodings = wordpiece().encode_batch([p.text for p in parts], add_special_tokens=False)
    for part, encoding in zip(parts, encodings, strict=True):
        offsets = encoding.offsets
        yield part, _Tokens([a for a, _ in offsets], [b for _, b in offsets], encoding.word_ids)


# --- paragraphs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Unit:
    """A sentence (or a window of a long one) with its token count; `gap` is the text between the
    previous unit of its paragraph and this one (spaces, line breaks), so pieces keep the original."""

    start: int
    text: str
    n_tokens: int
    gap: str
    opens: bool  # the first unit of a paragraph


def _paragraph_pieces(blocks: Iterable[str], size: int, overlap: int, slice_chars: int) -> Iterator[_Piece]:
    units = _units(_tokenized(paragraph_parts(blocks, slice_chars)), size)
    run: list[_Unit] = []  # the units of the piece being filled, all of one paragraph
    made = 0  # pieces made of this paragraph so far
    for unit in units:
        if unit.opens and run:
            yield _piece(run, made > 0)
            run, made = [], 0
        if run and sum(u.n_tokens for u in run) + unit.n_tokens > size:
            yield _piece(run, made > 0)
            made += 1
            run = _overlap(run, min(overlap, size - unit.n_tokens))
        run.append(unit)
    if run:
        yield _piece(run, made > 0)


def _overlap(run: list[_Unit], budget: int) -> list[_Unit]:
    """The run's last units that fit in `budget` tokens, never its first: the next piece repeats them."""
    back, tokens = len(run), 0
    while back - 1 > 0 and tokens + run[back - 1].n_tokens <= budget:
        back -= 1
        tokens += run[back].n_tokens
    return run[back:]


def _piece(run: list[_Unit], continues: bool) -> _Piece:
    text = run[0].text + "".join(u.gap + u.text for u in run[1:])
    return _Piece(run[0].start, text, sum(u.n_tokens for u in run), continues)


def _units(tokenized: Iterable[tuple[Part, _Tokens]], size: int) -> Iterator[_Unit]:
    """The sentences of every part, a sentence longer than `size` tokens as windows of it."""
    carry = ""  # the text after the last unit of the previous part: the next unit's gap begins with it
    for part, tokens in tokenized:
        if part.opens:
            carry = ""
        last, opens = 0, part.opens
        for a, b in sentence_spans(part.text):
            for start, end, n_tokens in _windows(a, b, tokens, size):
                yield _Unit(part.start + start, part.text[start:end], n_tokens, carry + part.text[last:start], opens)
                carry, last, opens = "", end, False
        carry += part.text[last:]


def _windows(start: int, end: int, tokens: _Tokens, size: int) -> Iterator[tuple[int, int, int]]:
    """The sentence at [start, end) with its token count; longer than `size`, as windows of at most
    `size` tokens, each ending before a token that starts a word unless one word is over `size`."""
    n_tokens = tokens.count(start, end)
    if n_tokens <= size:
        yield start, end, n_tokens
        return
    first, stop = bisect_left(tokens.starts, start), bisect_right(tokens.ends, end)
    while first < stop:
        last = min(first + size, stop)
        if last < stop:
            last = next((i for i in range(last, first, -1) if tokens.starts_word(i)), last)
        yield tokens.starts[first], tokens.ends[last - 1], last - first
        first = last


# --- windows -----------------------------------------------------------------------------------


def _window_pieces(blocks: Iterable[str], size: int, overlap: int, slice_chars: int) -> Iterator[_Piece]:
    """Windows of `size` tokens every `size - overlap` tokens; a text of at most `size` tokens is one
    piece holding all of it. Only the tokens and text from the current window's start are held."""
    step = size - overlap
    text, text_start = "", 0  # the text from document offset text_start on
    starts: list[int] = []  # document offsets of the tokens held
    ends: list[int] = []
    first = made = 0  # first: the index in starts of the next window's first token
    for part, tokens in _tokenized(text_slices(blocks, slice_chars)):
        if made:  # drop what only the windows already made needed
            del starts[:first], ends[:first]
            first, keep = 0, starts[0] if starts else part.start
            text, text_start = text[keep - text_start:], keep
        text += part.text
        starts += [part.start + a for a in tokens.starts]
        ends += [part.start + b for b in tokens.ends]
        while len(starts) - first > size:  # a full window, and the text goes on past it
            yield _Piece(starts[first], text[starts[first] - text_start:ends[first + size - 1] - text_start],
                         size, made > 0)
            made, first = made + 1, first + step
    if not made:
        if starts:
            yield _Piece(text_start, text, len(starts), False)
        return
    while len(starts) - first > overlap:
        last = min(first + size, len(starts)) - 1
        yield _Piece(starts[first], text[starts[first] - text_start:ends[last] - text_start], last - first + 1, True)
        first += step
