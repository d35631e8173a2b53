"""Names a question writes in part: "Higinio Uriarte" for the paragraph about "José Higinio
Uriarte y García del Barrio", "Madansinhji" for "Maharajadhiraj Mirza Maharao Sri Madansinhji …".

A name read from text is the full name its paragraph opens with; questions (and other texts) often
use a shorter form. A capitalised span of the question that matched no name exactly names a thing
when every one of its content words (not a stop word, not a title such as "Duke") belongs to one
name, there are at least MIN_WORDS of them, and together they pick out at most MAX_ROWS chunks —
a rare combination, not "John".
Words are compared case- and accent-folded ("Carl Von Linde" is not "Carl Linde": "von" is a word
of the span, so the span needs a name that has it).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

from hopgraph.text.stop_words import english

MAX_ROWS = 2  # a partial name must pick out at most this many chunks
MIN_WORDS = 2  # one word is too little: "November" picks "November 2008 Carolinas tornado outbreak"
_SPAN = re.compile(r"[A-ZÀ-Þ][\w'’.\-]*(?:,?\s+(?:(?:of|the|de|la|le|du|da|von|van|der|del|y|and|&)\s+)*"
                   r"[A-ZÀ-Þ0-9][\w'’.\-]*)*")
_TITLES = frozenset({"sir", "dame", "lord", "lady", "king", "queen", "prince", "princess", "duke", "duchess",
                     "count", "countess", "baron", "baroness", "earl", "emperor", "empress", "pope", "saint", "st",
                     "infante", "infanta", "archduke", "marquess", "viscount", "film", "song", "album", "band"})


def fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


def words_of(text: str) -> list[str]:
    return [fold(w) for w in re.findall(r"[^\W_]+", text)]


def content_words(span: str) -> set[str]:
    stop = english()
    return {w for w in words_of(span) if len(w) > 1 and w not in stop and w not in _TITLES and not w.isdigit()}


@functools.lru_cache(maxsize=1 << 19)
def _surface_words(surface: str) -> frozenset[str]:
    """A name's words, kept across loads: a replica makes PartialNames again each time another
    process writes, over names that are nearly all the same."""
    return frozenset(words_of(surface))


class PartialNames:
    """Word → the names (case-folded surfaces) that contain it, over every name of the index."""

    def __init__(self, rows_named: dict[str, list[int]]) -> None:
        self.rows_named = rows_named
        self.names_with: dict[str, set[str]] = defaultdict(set)
        for surface in rows_named:
            for word in _surface_words(surface):
                self.names_with[word].add(surface)

    def find(self, question: str, matched: Iterable[str]) -> list[tuple[int, str]]:
        """(row, case-folded surface) of the names the question's unmatched spans write in part."""
        rest = question
        for surface in matched:  # what was matched exactly is no partial name
            rest = re.sub(re.escape(surface), " ", rest, flags=re.IGNORECASE)
        found: list[tuple[int, str]] = []
        for span in _SPAN.findall(rest):
            words = content_words(span)
            if len(words) < MIN_WORDS or any(w not in self.names_with for w in words):
                continue
            surfaces = set.intersection(*(self.names_with[w] for w in words))
            rows = {row for s in surfaces for row in self.rows_named[s]}
            if 0 < len(rows) <= MAX_ROWS:
                best = min(surfaces, key=len)  # the shortest name holding the words: how it is written
                found.extend((row, best) for row in sorted(rows))
        return found
