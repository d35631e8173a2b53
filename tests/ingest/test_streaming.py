"""Chunking a text that streams in blocks, through bounded slices, gives the chunks that chunking the
whole text at once gave; a paragraph of any length is chunked without tokenizing it whole."""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import pairwise

import pytest

from hopgraph.ingest import chunking
from hopgraph.ingest.chunking import chunk_document
from hopgraph.records.documents import Chunk, Document
from hopgraph.text.sentences import paragraph_spans, sentence_spans, split_sentences
from hopgraph.text.tokens import count_tokens, wordpiece

SIZE, OVERLAP = 60, 15
WORDS = ["the", "foundry", "casts", "brake", "discs", "in", "Hosur", "and", "ships", "them", "to", "Pune", "by",
         "rail", "every", "week", "while", "plant", "manager", "Rao", "counts", "castings", "orders", "drums",
         "pads", "calipers", "before", "monsoon", "floods"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 18))]
    if rng.random() < 0.15:
        words.insert(1, "Dr. Rao")  # a period that ends no sentence
    return words[0].capitalize() + " " + " ".join(words[1:]) + rng.choice("..!?")


def prose(n_paragraphs: int, seed: int = 3, blank_lines: bool = True) -> str:
    """Paragraphs of 1 to 40 sentences, some hard-wrapped, with a heading now and then."""
    rng = random.Random(seed)
    paragraphs = []
    for i in range(n_paragraphs):
        sentences = [_sentence(rng) for _ in range(rng.choice((1, 2, 4, 8, 40)))]
        joiner = "\n" if rng.random() < 0.2 else " "
        heading = f"Section {i}\n\n" if rng.random() < 0.1 and blank_lines else ""
        paragraphs.append(heading + joiner.join(sentences))
    return ("\n\n" if blank_lines else " ").join(paragraphs)


def whole_text_chunks(text: str, size: int, overlap: int) -> list[tuple[str, int, bool]]:
    """The chunker as it was before streaming (paragraph by paragraph, each tokenized whole): the oracle."""
    out: list[tuple[str, int, bool]] = []
    for start, end in paragraph_spans(text):
        offsets = wordpiece().encode(text[start:end], add_special_tokens=False).offsets
        starts, ends = [start + a for a, _ in offsets], [start + b for _, b in offsets]

        def count(a: int, b: int, starts: list[int] = starts, ends: list[int] = ends) -> int:
            return max(0, bisect_right(ends, b) - bisect_left(starts, a))

        if count(start, end) <= size:
            out.append((text[start:end], count(start, end), False))
            continue
        spans = [(start + a, start + b) for a, b in sentence_spans(text[start:end])]
        assert all(count(a, b) <= size - overlap for a, b in spans)  # the old packer's one quirk stays out
        first, made = 0, 0
        while first < len(spans):
            last = first
            while last + 1 < len(spans) and count(spans[first][0], spans[last + 1][1]) <= size:
                last += 1
            a, b = spans[first][0], spans[last][1]
            out.append((text[a:b], count(a, b), made > 0))
            made += 1
            if last + 1 >= len(spans):
                break
            back = last + 1
            while back - 1 > first and count(spans[back - 1][0], spans[last][1]) <= overlap:
                back -= 1
            first = back
    return out


def streamed(text: str, block: int) -> Document:
    """The text as a document whose text arrives in blocks of `block` characters."""
    def blocks() -> Iterator[str]:
        return (text[i:i + block] for i in range(0, len(text), block))
    return Document("t", "", "s", reread=blocks)


def as_tuples(chunks: list[Chunk]) -> list[tuple[str, int, bool]]:
    return [(c.text, c.n_tokens, c.continues) for c in chunks]


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Slices of the smallest size the chunker allows for SIZE, batches of a few slices, and the
    length of every text it tokenizes."""
    monkeypatch.setattr(chunking, "SLICE_CHARS", 1)
    monkeypatch.setattr(chunking, "BATCH_CHARS", 20_000)
    seen: list[int] = []
    encode = chunking._encode

    def recording(parts: list[chunking.Part]) -> Iterator[tuple[chunking.Part, chunking._Tokens]]:
        seen.extend(len(p.text) for p in parts)
        return encode(parts)
    monkeypatch.setattr(chunking, "_encode", recording)
    return seen


def test_paragraphs_chunk_as_before_whole_or_streamed(small_slices: list[int]) -> None:
    text = prose(300)
    expected = whole_text_chunks(text, SIZE, OVERLAP)
    assert sum(c for _, _, c in expected) > 20  # long paragraphs were cut, with overlap
    assert as_tuples(chunk_document(Document("t", text, "s"), "t", SIZE, OVERLAP)) == expected
    for block in (1, 997, 4096):
        assert as_tuples(chunk_document(streamed(text, block), "t", SIZE, OVERLAP)) == expected


def test_a_paragraph_without_end_is_chunked_slice_by_slice(small_slices: list[int]) -> None:
    text = prose(400, seed=8, blank_lines=False)  # one paragraph of ~200 kB
    slice_chars = 2 * chunking.LONG_WORD_CHARS * SIZE
    assert len(text) > 20 * slice_chars
    chunks = chunk_document(streamed(text, 3001), "t", SIZE, OVERLAP)
    assert max(small_slices) <= slice_chars  # never the whole paragraph at once
    assert as_tuples(chunks) == whole_text_chunks(text, SIZE, OVERLAP)
    assert all(c.n_tokens <= SIZE and c.n_tokens == count_tokens(c.text) for c in chunks)
    covered = " ".join(" ".join(c.text.split()) for c in chunks)
    assert all(sentence in covered for sentence in split_sentences(text))  # no text lost


def test_windows_stream_as_they_were_cut_from_the_whole_text(small_slices: list[int]) -> None:
    text = prose(80, seed=4)
    offsets = wordpiece().encode(text, add_special_tokens=False).offsets
    expected = [text[offsets[first][0]:offsets[min(first + SIZE, len(offsets)) - 1][1]]
                for first in range(0, len(offsets) - OVERLAP, SIZE - OVERLAP)]
    for doc in (Document("t", text, "s"), streamed(text, 1500)):
        chunks = chunk_document(doc, "t", SIZE, OVERLAP, by="windows")
        assert [c.text for c in chunks] == expected
    assert max(small_slices) <= 2 * chunking.LONG_WORD_CHARS * SIZE


def test_a_piece_never_only_repeats_the_end_of_the_piece_before() -> None:
    """A sentence that leaves no room for the overlap starts its piece without it."""
    short = ["The foundry casts discs.", "It ships them weekly."]
    long_ = "Then " + " ".join(["parts"] * 55) + "."
    text = " ".join([*short, long_])
    chunks = chunk_document(Document("t", text, "s"), "t", size=60, overlap=15)
    assert count_tokens(short[1]) <= 15 and count_tokens(short[1]) + count_tokens(long_) > 60
    assert [c.text for c in chunks] == [" ".join(short), long_]
    for before, after in pairwise(chunks):
        assert not before.text.endswith(after.text)
