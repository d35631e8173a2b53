"""The question-name lookups of a search snapshot, as arrays a process maps instead of rebuilding.

A store of a million chunks names a quarter of a million documents; unpickling the Aho-Corasick
automaton, `rows_named`, `display_names` and the partial-name word index costs seconds and grows
with the store. A question is short, so the same answers come from looking its candidate spans up:
every span that starts and ends on a word boundary (what `MentionFinder` accepts) and is no longer
than the longest name is hashed, and the hashes are found in a sorted array, each hit confirmed
against the stored string. The same spans match, so `SpanFinder.find` returns what the automaton's
`find` returns; the mappings read as the dicts they replace (tests/retrieval/test_snapshot.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from hopgraph.retrieval.partial_names import PartialNames, words_of


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


class StringIndex(Sequence[str]):
    """Strings by position (offsets into UTF-8 bytes) and position by string (sorted hashes)."""

    def __init__(self, offsets: np.ndarray, blob: np.ndarray, hashes: np.ndarray, order: np.ndarray) -> None:
        self.offsets, self.blob, self.hashes, self.order = offsets, blob, hashes, order

    @classmethod
    def of(cls, strings: Sequence[str]) -> StringIndex:
        encoded = [s.encode("utf-8") for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(e) for e in encoded])
        hashes = np.fromiter((_hash(s) for s in strings), dtype=np.uint64, count=len(strings))
        order = np.argsort(hashes, kind="stable")
        return cls(offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8), hashes[order], order)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        return self.blob[self.offsets[i] : self.offsets[i + 1]].tobytes().decode("utf-8")

    def positions(self, strings: Sequence[str]) -> list[int]:
        """The position of each string, -1 where it is not held (one vectorised search)."""
        hashes = np.fromiter((_hash(s) for s in strings), dtype=np.uint64, count=len(strings))
        at = np.searchsorted(self.hashes, hashes)
        out = []
        for text, h, i in zip(strings, hashes.tolist(), at.tolist(), strict=True):
            found = -1
            while i < len(self.hashes) and int(self.hashes[i]) == h:  # equal hashes: confirm the text
                if self[int(self.order[i])] == text:
                    found = int(self.order[i])
                    break
                i += 1
            out.append(found)
        return out

    def position(self, text: str) -> int:
        return self.positions([text])[0]


class SpanFinder:
    """`MentionFinder(surfaces, casefold=True).find` by looking up a text's boundary spans."""

    casefold = True

    def __init__(self, surfaces: StringIndex, longest: int) -> None:
        self.surfaces, self.longest, self.empty = surfaces, longest, len(surfaces) == 0

    def find(self, text: str) -> list[int]:
        if self.empty:
            return []
        text = text.casefold()
        starts = [i for i in range(len(text)) if i == 0 or not text[i - 1].isalnum()]
        ends = [i for i in range(len(text)) if i + 1 == len(text) or not text[i + 1].isalnum()]
        pairs = [(s, e) for s in starts for e in ends if s <= e < s + self.longest]
        found = self.surfaces.positions([text[s : e + 1] for s, e in pairs])
        spans = sorted((s, -(e - s + 1), i) for (s, e), i in zip(pairs, found, strict=True) if i >= 0)
        chosen: dict[int, None] = {}
        covered = -1
        for start, neg_length, index in spans:  # leftmost-longest, no overlaps: MentionFinder's rule
            if start > covered:
                chosen[index] = None
                covered = start - neg_length - 1
        return list(chosen)


class _ByString(Mapping[str, object]):
    """A read-only mapping from the strings of a StringIndex to a value per position."""

    def __init__(self, keys: StringIndex, value_at) -> None:  # type: ignore[no-untyped-def]
        self._keys, self._value_at = keys, value_at

    def __getitem__(self, key: str) -> object:
        i = self._keys.position(key)
        if i < 0:
            raise KeyError(key)
        return self._value_at(i)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def _csr(lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(x) for x in lists])
    values = np.fromiter((v for x in lists for v in x), dtype=np.int64, count=int(indptr[-1]))
    return indptr, values


def save_names(directory: Path, surfaces: Sequence[str], rows_named: Mapping[str, list[int]],
               display_names: Mapping[str, str]) -> None:
    """The arrays `load_names` reads: the question automaton's surfaces in its order, their rows,
    their display forms, and each name word's surfaces (the partial-name index)."""
    by_word: dict[str, list[int]] = {}
    for position, surface in enumerate(surfaces):
        for word in set(words_of(surface)):
            by_word.setdefault(word, []).append(position)
    words = list(by_word)
    arrays = {"longest": np.asarray([max((len(s) for s in surfaces), default=0)])}
    for name, strings in (("surfaces", surfaces), ("display", [display_names.get(s, s) for s in surfaces]),
                          ("words", words)):
        index = StringIndex.of(strings)
        arrays |= {f"{name}_offsets": index.offsets, f"{name}_blob": index.blob, f"{name}_hashes": index.hashes,
                   f"{name}_order": index.order}
    arrays["rows_indptr"], arrays["rows"] = _csr([rows_named.get(s, []) for s in surfaces])
    arrays["word_indptr"], arrays["word_surfaces"] = _csr([by_word[w] for w in words])
    for name, array in arrays.items():
        np.save(directory / f"names.{name}.npy", array)


def load_names(directory: Path) -> tuple[SpanFinder, Mapping, Mapping, PartialNames]:
    """(question names, rows_named, display_names, partial names) over the arrays of `save_names`."""
    def load(name: str) -> np.ndarray:
        return np.load(directory / f"names.{name}.npy")

    def strings(name: str) -> StringIndex:
        return StringIndex(*(load(f"{name}_{part}") for part in ("offsets", "blob", "hashes", "order")))

    surfaces, display, words = strings("surfaces"), strings("display"), strings("words")
    indptr, rows = load("rows_indptr"), load("rows")
    word_indptr, word_surfaces = load("word_indptr"), load("word_surfaces")
    rows_named = _ByString(surfaces, lambda i: rows[indptr[i] : indptr[i + 1]].tolist())
    display_names = _ByString(surfaces, lambda i: display[i])
    names_with = _ByString(words, lambda i: {surfaces[int(p)]
                                             for p in word_surfaces[word_indptr[i] : word_indptr[i + 1]]})
    partial = PartialNames.__new__(PartialNames)  # its find() over these lookups, not rebuilt dicts
    partial.rows_named, partial.names_with = rows_named, names_with  # type: ignore[assignment]
    return SpanFinder(surfaces, int(load("longest")[0])), rows_named, display_names, partial
