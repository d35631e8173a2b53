"""Chunking: paragraphs and whole sentences by default; token windows (size, exact overlap, full
coverage) on request; always cut from the original text."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from hopgraph.errors import InputError
from hopgraph.ingest.chunking import chunk_document
from hopgraph.records.documents import Chunk, Document
from hopgraph.text.tokens import LONG_WORD_CHARS, count_tokens, wordpiece


def _long_text(n_words: int = 400) -> str:
    """Distinct made-up words (split into several WordPiece pieces), with accents, capitals and punctuation.

    No word repeats, so every window's text occurs in the document exactly once.
    """
    syllables = ["ba", "kè", "ri", "mo", "tu", "sa", "né", "lo", "vi", "zu"]
    words = []
    for i in range(n_words):
        word = "".join(syllables[int(d)] for d in f"{i:03d}")
        word = word.capitalize() if i % 7 == 0 else word
        words.append(word + ("." if i % 11 == 10 else "," if i % 5 == 4 else ""))
    return " ".join(words)


LONG_TEXT = _long_text()


def token_spans(text: str, chunks: list[Chunk]) -> list[range]:
    """For each chunk, the range of token indices (in the whole text) that its text covers."""
    offsets = wordpiece().encode(text, add_special_tokens=False).offsets
    spans, search_from = [], 0
    for chunk in chunks:
        start = text.find(chunk.text, search_from)
        assert start >= 0, f"chunk {chunk.ord} is not a substring of the document"
        end = start + len(chunk.text)
        inside = [i for i, (a, b) in enumerate(offsets) if a >= start and b <= end]
        assert inside == list(range(inside[0], inside[-1] + 1))
        spans.append(range(inside[0], inside[-1] + 1))
        search_from = start + 1
    return spans


def test_short_text_is_one_chunk_holding_all_of_it() -> None:
    text = "  Adriana Trigiani is an Italian American author.\n"
    chunks = chunk_document(Document("Adriana Trigiani", text, "s"), "key", size=50, overlap=10, by="windows")
    assert len(chunks) == 1
    assert chunks[0].text == text
    assert (chunks[0].doc_key, chunks[0].ord) == ("key", 0)
    assert chunks[0].n_tokens == count_tokens(text)


def test_text_of_exactly_one_window_stays_one_chunk() -> None:
    text = " ".join(["word"] * 30)
    assert count_tokens(text) == 30
    assert len(chunk_document(Document("t", text, "s"), "t", size=30, overlap=5, by="windows")) == 1


@pytest.mark.parametrize("size, overlap", [(40, 7), (25, 0), (10, 9), (64, 32)])
def test_long_text_windows_fit_overlap_exactly_and_cover_the_text(size: int, overlap: int) -> None:
    n_tokens = count_tokens(LONG_TEXT)
    assert n_tokens > 3 * size  # several windows
    chunks = chunk_document(Document("t", LONG_TEXT, "s"), "t", size=size, overlap=overlap, by="windows")
    spans = token_spans(LONG_TEXT, chunks)

    assert len(chunks) > 1
    assert [c.ord for c in chunks] == list(range(len(chunks)))
    for chunk, span in zip(chunks, spans, strict=True):
        assert len(span) <= size
        assert chunk.n_tokens == len(span)
    for before, after in pairwise(spans):
        assert len(set(before) & set(after)) == overlap
        assert after.start > before.start
    assert spans[0].start == 0 and spans[-1].stop == n_tokens
    assert set().union(*spans) == set(range(n_tokens))
    assert LONG_TEXT.startswith(chunks[0].text)
    assert LONG_TEXT.endswith(chunks[-1].text)


def test_every_window_but_the_last_is_full() -> None:
    chunks = chunk_document(Document("t", LONG_TEXT, "s"), "t", size=40, overlap=7, by="windows")
    assert all(c.n_tokens == 40 for c in chunks[:-1])


def test_chunk_text_is_cut_from_the_original_not_detokenised() -> None:
    chunks = chunk_document(Document("t", LONG_TEXT, "s"), "t", size=33, overlap=5, by="windows")
    for chunk in chunks:
        assert chunk.text in LONG_TEXT
    assert any("è" in c.text for c in chunks)  # accents kept (the tokenizer strips them)
    assert any("B" in c.text for c in chunks)  # case kept (the tokenizer lower-cases)


@pytest.mark.parametrize("size, overlap", [(0, 0), (-5, 0), (10, 10), (10, 11), (10, -1)])
def test_bad_size_or_overlap_is_an_input_error(size: int, overlap: int) -> None:
    with pytest.raises(InputError):
        chunk_document(Document("t", "some text", "s"), "t", size=size, overlap=overlap)


def test_bad_chunking_name_is_an_input_error() -> None:
    with pytest.raises(InputError, match="chunking 'lines'"):
        chunk_document(Document("t", "some text", "s"), "t", by="lines")


THREE_PARAGRAPHS = ("Ravik Foundry casts brake discs in Hosur. It has one plant.\n\n"
                    "Results\n\n"
                    "The Kaveri flooded Hosur in May. Mr. Rao said the plant stopped.\n\n"
                    "Brake maker A buys its castings from Ravik Foundry.")


def test_a_chunk_never_crosses_a_paragraph_and_a_heading_joins_the_next() -> None:
    chunks = chunk_document(Document("t", THREE_PARAGRAPHS, "s"), "t", size=600, overlap=100)
    assert [c.text for c in chunks] == [
        "Ravik Foundry casts brake discs in Hosur. It has one plant.",
        "Results\n\nThe Kaveri flooded Hosur in May. Mr. Rao said the plant stopped.",
        "Brake maker A buys its castings from Ravik Foundry."]
    assert [c.continues for c in chunks] == [False, False, False]
    assert all(c.n_tokens == count_tokens(c.text) for c in chunks)


def test_a_long_paragraph_is_cut_between_sentences_with_whole_sentence_overlap() -> None:
    sentences = [f"Sentence number {i} names the foundry of plant {i}." for i in range(40)]
    text = " ".join(sentences)
    chunks = chunk_document(Document("t", text, "s"), "t", size=60, overlap=15)
    assert len(chunks) > 3
    assert [c.continues for c in chunks] == [False] + [True] * (len(chunks) - 1)
    for chunk in chunks:
        assert chunk.n_tokens <= 60
        assert chunk.text.startswith("Sentence number") and chunk.text.endswith(".")  # whole sentences
        assert chunk.text in text
    for before, after in pairwise(chunks):
        first_of_next = after.text.split(". ")[0] + "."
        assert first_of_next in before.text  # the overlap repeats whole sentences of the previous chunk
    covered = "".join(c.text for c in chunks)
    assert all(s in covered for s in sentences)


def test_only_a_sentence_longer_than_the_size_is_cut_inside() -> None:
    text = "Short one. " + " ".join(["word"] * 50) + "."
    chunks = chunk_document(Document("t", text, "s"), "t", size=20, overlap=5)
    assert chunks[0].text.startswith("Short one.")
    assert all(c.n_tokens <= 20 for c in chunks)
    assert sum(c.text.count("word") for c in chunks) >= 50


def _no_space_run(n_chars: int) -> str:
    """Letters and digits with no space or punctuation (one "word" to the pre-tokenizer), never
    repeating a stretch long enough to make a chunk's text occur twice."""
    return "".join(random.Random(5).choices("abcdefghijklmnopqrstuvwxyz0123456789", k=n_chars))


def test_a_word_longer_than_wordpiece_allows_counts_as_many_tokens() -> None:
    word = _no_space_run(LONG_WORD_CHARS * 4)
    assert count_tokens(word) >= 4  # WordPiece alone made it one [UNK]
    assert count_tokens(word) == sum(count_tokens(word[i:i + LONG_WORD_CHARS])
                                     for i in range(0, len(word), LONG_WORD_CHARS))
    assert count_tokens("antidisestablishmentarianism") == len(
        wordpiece().encode("antidisestablishmentarianism", add_special_tokens=False).ids)


@pytest.mark.parametrize("by", ["paragraphs", "windows"])
def test_a_long_run_without_spaces_is_cut_like_any_text(by: str) -> None:
    run = _no_space_run(100_000)
    text = f"It starts here. {run} It ends here. Not a moment too soon."  # a period after the run
    chunks = chunk_document(Document("t", text, "s"), "t", size=200, overlap=20, by=by)
    assert len(chunks) > 100  # 100 kB of letters is tens of thousands of tokens, not one [UNK]
    assert all(c.n_tokens <= 200 for c in chunks)
    spans = sorted((text.index(c.text), text.index(c.text) + len(c.text)) for c in chunks)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(after[0] <= before[1] + 1 for before, after in pairwise(spans))  # nothing left out


def test_a_run_without_spaces_is_cut_where_a_piece_of_it_starts() -> None:
    """Paragraph chunks of a run end between its pieces, so the chunk alone counts as it did in the text."""
    text = _no_space_run(30_000)
    chunks = chunk_document(Document("t", text, "s"), "t", size=200, overlap=20)
    assert [c.n_tokens for c in chunks] == [count_tokens(c.text) for c in chunks]
    assert all(text.index(c.text) % LONG_WORD_CHARS == 0 for c in chunks)
