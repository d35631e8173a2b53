"""Names: what a document is called, and where those names are mentioned (Aho-Corasick).

A document's title is its name, with a disambiguation suffix stripped ("Big Stone Gap (film)" is
mentioned as "Big Stone Gap"). A gazetteer adds aliases. Some names make poor link anchors —
too short, only digits ("1989"), or mentioned by a large share of the corpus ("United States") —
so each name carries the reason it was filtered, if any, and the filter stays measurable.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import ahocorasick
import numpy as np

from hopgraph.errors import InputError
from hopgraph.records.names import GazetteerEntry, Name

_SUFFIX = re.compile(r"\s*\([^()]*\)\s*$")
_NUMERIC = re.compile(r"^[\d\s.,:/\-–]+$")


def strip_disambiguation(title: str) -> str:
    """'Big Stone Gap (film)' → 'Big Stone Gap'; a title that is all parenthesis stays as it is."""
    stripped = _SUFFIX.sub("", title).strip()
    return stripped or title.strip()


def read_gazetteer(path: Path) -> list[GazetteerEntry]:
    """CSV with header `name,aliases,type,id`; aliases separated by `|` or `;`."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise InputError(f"{path}: cannot read gazetteer: {err}") from None
    if not rows or "name" not in rows[0]:
        raise InputError(f"{path}: gazetteer needs a header with at least a 'name' column "
                         f"(name,aliases,type,id)")
    entries = []
    for line, row in enumerate(rows, start=2):
        name = (row.get("name") or "").strip()
        if not name:
            raise InputError(f"{path}: line {line} has an empty name")
        aliases = tuple(a.strip() for a in re.split(r"[|;]", row.get("aliases") or "") if a.strip())
        entries.append(GazetteerEntry(name, aliases, (row.get("type") or "").strip(),
                                      (row.get("id") or "").strip()))
    return entries


def names_for_documents(titles: dict[int, str], gazetteer: Sequence[GazetteerEntry] = (),
                        doc_names: dict[int, Sequence[str]] | None = None) -> list[Name]:
    """Each title as its reader would write it (suffix stripped) and, when it has a suffix, in full
    ("The Broken Melody (1937 film)" is how a question tells the 1937 film apart); plus gazetteer
    names, attached to the document they name.

    With `doc_names` (document id → names, e.g. read from its text) those are the documents'
    names instead of their titles (kind "text"); a gazetteer entry attaches to a document by its
    title or by one of those names."""
    names = []
    if doc_names is None:
        for doc_id, title in titles.items():
            names.append(Name(strip_disambiguation(title), doc_id, "title"))
            if strip_disambiguation(title) != title.strip():
                names.append(Name(title.strip(), doc_id, "title"))
    else:
        for doc_id, surfaces in doc_names.items():
            names.extend(Name(s, doc_id, "text") for s in dict.fromkeys(s.strip() for s in surfaces) if s)
    return names + gazetteer_names(titles, gazetteer, [(name.surface, name.doc_id) for name in names])


def gazetteer_names(titles: dict[int, str], gazetteer: Sequence[GazetteerEntry],
                    known: Iterable[tuple[str, int | None]] = ()) -> list[Name]:
    """The gazetteer's names and aliases, each attached to the document its entry's id or name
    names: by a title (with or without its suffix), else by one of the `known` (surface, document)
    names, first come first served."""
    by_name: dict[str, int | None] = {}
    for doc_id, title in titles.items():
        by_name.setdefault(title, doc_id)
        by_name.setdefault(strip_disambiguation(title), doc_id)
    for surface, doc_id in known:
        by_name.setdefault(surface, doc_id)
    return [Name(surface, by_name.get(entry.id, by_name.get(entry.name)), "gazetteer")
            for entry in gazetteer for surface in (entry.name, *entry.aliases)]


class MentionFinder:
    """Finds the names in a text on word boundaries, leftmost-longest and without overlaps.

    With `casefold`, matching ignores case and `surfaces` holds the case-folded forms: questions
    are often typed in Title Case ("Murder In The Big House") or all lower case.
    """

    def __init__(self, surfaces: Iterable[str], casefold: bool = False) -> None:
        self._automaton = ahocorasick.Automaton()
        self.casefold = casefold
        self.surfaces: list[str] = []
        folded = (s.casefold() for s in surfaces) if casefold else surfaces
        for surface in dict.fromkeys(f for f in folded if f):  # unique, order kept; "" names nothing
            self._automaton.add_word(surface, (len(self.surfaces), len(surface)))
            self.surfaces.append(surface)
        self.empty = not self.surfaces
        if not self.empty:
            self._automaton.make_automaton()

    def find(self, text: str) -> list[int]:
        """Indices (into `surfaces`) of the names mentioned in `text`, each once, in text order."""
        if self.empty:
            return []
        text = text.casefold() if self.casefold else text
        spans = []
        for end, (index, length) in self._automaton.iter(text):
            start = end - length + 1
            if (start == 0 or not text[start - 1].isalnum()) and (
                end + 1 == len(text) or not text[end + 1].isalnum()
            ):
                spans.append((start, -length, index))
        spans.sort()
        found: dict[int, None] = {}
        covered = -1
        for start, neg_length, index in spans:
            if start > covered:
                found[index] = None
                covered = start - neg_length - 1
        return list(found)


def filter_reason(surface: str, n_docs_mentioning: int, n_docs: int,
                  min_chars: int, max_doc_share: float) -> str:
    """Why a name should make no links, or '' if it should."""
    if len(surface) < min_chars:
        return "short"
    if _NUMERIC.match(surface):
        return "numeric"
    # A hub: mentioned by more than the allowed share of documents (and never fewer than 5).
    if n_docs_mentioning > max(5, max_doc_share * n_docs):
        return "common"
    return ""


def find_mentions(finder: MentionFinder, chunk_texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """All (chunk row, surface index) mention pairs as two int arrays."""
    rows: list[int] = []
    surfaces: list[int] = []
    for row, text in enumerate(chunk_texts):
        for index in finder.find(text):
            rows.append(row)
            surfaces.append(index)
    return np.asarray(rows, dtype=np.int64), np.asarray(surfaces, dtype=np.int64)


def apply_filters(names: list[Name], finder: MentionFinder, mention_surfaces: np.ndarray,
                  mention_docs: np.ndarray, n_docs: int, min_chars: int, max_doc_share: float) -> None:
    """Set `Name.filtered` from each surface's frequency among the mentions: the number of distinct
    units (`mention_docs`: chunk rows, since a document may be a 40-page report) out of `n_docs`."""
    docs_per_surface: dict[int, set[int]] = defaultdict(set)
    for surface, doc in zip(mention_surfaces.tolist(), mention_docs.tolist(), strict=True):
        docs_per_surface[surface].add(doc)
    index_of = {surface: i for i, surface in enumerate(finder.surfaces)}
    for name in names:
        df = len(docs_per_surface.get(index_of.get(name.surface, -1), ()))
        name.filtered = filter_reason(name.surface, df, n_docs, min_chars, max_doc_share)
