"""Entity resolution: which extracted names are one entity.

In this order, each step only merging names of compatible type (equal, or one unknown):
1. a gazetteer or alias table — exact names and aliases, case-insensitive;
2. normalisation — case, punctuation, legal suffixes (Pvt Ltd, Inc, GmbH…), honorifics (Dr, Mrs…),
   and a parenthesised alias ("FF Castings (Foundry F)" is also "Foundry F");
3. short forms that point at exactly ONE longer name of the same type: a leading or trailing part
   ("Ferrosyn" → "Ferrosyn Alloys", "Haul 31" → "Dhruvex Haul 31"), a person's surname ("Mr. Jaiswal"
   → "Pranav Jaiswal" only if no other Jaiswal is known), an acronym ("CBS" → "Corvane Brake
   Systems"); an ambiguous short form merges with nothing;
4. embedding similarity of the normalised names: at or above `auto` merge, between `review` and
   `auto` the pair goes to a review list (`hopgraph review-merges`) instead of being applied,
   unless a reviewer already accepted (merge) or rejected (keep apart) that very pair.
Every canonical entity keeps all its surface forms as aliases.

Beside stated facts, a concept graph's names are *guesses* (`guesses`): they join a stated name by the
gazetteer or by normalisation, and each other by normalisation, but take no part in steps 3 and 4 —
"Dhruvex Trucks Ltd, Indore" would make the short form "Dhruvex" ambiguous, and embedding thousands
of noun phrases is the slowest step for no gain.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from hopgraph.records.knowledge import MergeCandidate
from hopgraph.records.names import GazetteerEntry
from hopgraph.text.embed import Embedder

LEGAL_SUFFIXES = {"pvt", "private", "ltd", "limited", "inc", "incorporated", "llc", "llp", "plc", "gmbh", "ag",
                  "co", "corp", "corporation", "company", "sa", "sas", "spa", "bv", "nv", "pty", "kg", "oy", "ab",
                  "group"}  # "Sreevar Metals Group" is the group "Sreevar Metals" heads, for a supply chain
HONORIFICS = {"dr", "mr", "mrs", "ms", "miss", "prof", "sir", "dame", "shri", "smt"}
UNKNOWN = ""
BRANDED_TYPES = {"PRODUCT", "COMPONENT"}
_PAREN = re.compile(r"^(.+?)\s*\(([^()]+)\)\s*$")
_WORD = re.compile(r"[^\W_]+")


def normalise(name: str) -> str:
    """'Foundry F Pvt. Ltd.' → 'foundry f'; 'Dr. Meera Rao' → 'meera rao'; 'The Acme Co' → 'acme'."""
    words = _WORD.findall(name.casefold().replace("&", " and "))
    while words and words[-1] in LEGAL_SUFFIXES | {"and"}:
        words.pop()
    while words and words[0] in HONORIFICS | {"the"}:
        words.pop(0)
    return " ".join(words)


def keys_of(name: str) -> list[str]:
    """The normalised keys a name answers to: itself and, for 'X (Y)', both X and Y."""
    match = _PAREN.match(name)
    parts = [name, match.group(1), match.group(2)] if match else [name]
    return [key for key in dict.fromkeys(normalise(p) for p in parts) if key]


def compatible(a: str, b: str) -> bool:
    return a == b or UNKNOWN in (a, b)


@dataclass
class Cluster:
    name: str
    type: str
    description: str = ""
    aliases: set[str] = field(default_factory=set)


@dataclass
class Resolution:
    clusters: list[Cluster]
    lookup: dict[tuple[str, str], int]  # (case-folded surface, type) → 1-based cluster id
    reviews: list[MergeCandidate] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_surface: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for (surface, type_), cluster_id in self.lookup.items():
            self._by_surface[surface].append((type_, cluster_id))

    def entity_of(self, name: str, type_: str = UNKNOWN) -> int | None:
        """The cluster of a mention; an untyped mention takes the first cluster its name is in."""
        folded, type_ = name.strip().casefold(), type_.strip().upper()
        found = self.lookup.get((folded, type_))
        if found is None:
            found = next((cid for t, cid in self._by_surface.get(folded, ()) if compatible(t, type_)), None)
        return found


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        self.parent[self.find(b)] = self.find(a)


def resolve(mentions: Iterable[tuple[str, str, str]], gazetteer: Sequence[GazetteerEntry] = (),
            embedder: Embedder | None = None, auto: float = 0.93, review: float = 0.80,
            decisions: dict[tuple[str, str], bool] | None = None,
            guesses: Iterable[tuple[str, str, str]] = ()) -> Resolution:
    """Cluster (name, type, description) mentions into entities; see the module docstring."""
    counts: Counter[tuple[str, str]] = Counter()
    descriptions: dict[tuple[str, str], str] = {}
    stated: set[tuple[str, str]] = set()
    for guess, (name, type_, description) in [(False, m) for m in mentions] + [(True, m) for m in guesses]:
        if name.strip():
            key = (name.strip(), type_.strip().upper())
            counts[key] += 1
            stated |= set() if guess else {key}
            if description and len(description) > len(descriptions.get(key, "")):
                descriptions[key] = description
    surfaces = list(counts)
    sets = _UnionFind(len(surfaces))
    canonical = _merge_by_gazetteer(surfaces, gazetteer, sets)
    _merge_by_keys(surfaces, sets)
    named = [p for p, surface in enumerate(surfaces) if surface in stated]
    _merge_short_forms(surfaces, sets, named)
    reviews = _merge_by_embedding(surfaces, sets, named, embedder, auto, review, decisions or {}) if embedder else []
    return _clusters(surfaces, sets, counts, descriptions, canonical, reviews, stated)


def _merge_by_gazetteer(surfaces: list[tuple[str, str]], gazetteer: Sequence[GazetteerEntry],
                        sets: _UnionFind) -> dict[int, tuple[str, str]]:
    """Union the surfaces that name one gazetteer entry; return root → (canonical name, type)."""
    entry_of: dict[str, int] = {}
    for index, entry in enumerate(gazetteer):
        for surface in (entry.name, *entry.aliases):
            entry_of.setdefault(surface.casefold(), index)
    first_of_entry: dict[int, int] = {}
    for position, (surface, type_) in enumerate(surfaces):
        index = entry_of.get(surface.casefold())
        if index is not None and compatible(gazetteer[index].type.strip().upper(), type_):
            if index in first_of_entry:
                sets.union(first_of_entry[index], position)
            else:
                first_of_entry[index] = position
    return {sets.find(p): (gazetteer[i].name, gazetteer[i].type.upper()) for i, p in first_of_entry.items()}


def _merge_by_keys(surfaces: list[tuple[str, str]], sets: _UnionFind) -> None:
    """Same normalised key and same type → one entity; an untyped mention joins only when the key
    belongs to exactly one type (an untyped "Jordan" must not glue the person to the country)."""
    by_key: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for position, (surface, type_) in enumerate(surfaces):
        for key in keys_of(surface):
            by_key[key][type_].append(position)
    for by_type in by_key.values():
        for positions in by_type.values():
            for position in positions[1:]:
                sets.union(positions[0], position)
        typed = [t for t in by_type if t != UNKNOWN]
        if UNKNOWN in by_type and len(typed) == 1:
            sets.union(by_type[typed[0]][0], by_type[UNKNOWN][0])


def _short_form_index(keys: dict[int, tuple[str, list[str]]]) -> dict[tuple[str, str], set[int]]:
    """(kind:short form, type) → the clusters it could stand for; kinds: prefix, suffix, surname, acronym."""
    index: dict[tuple[str, str], set[int]] = defaultdict(set)
    for root, (type_, cluster_keys) in keys.items():
        for key in cluster_keys:
            words = key.split()
            for n in range(1, len(words)):
                index[(f"prefix:{' '.join(words[:n])}", type_)].add(root)
                # a trailing part only for products and components ("Dhruvex Haul 31"): for places it
                # is the region ("Tamil Nadu" of "Hosur, Tamil Nadu"), a different entity
                if type_ in BRANDED_TYPES:
                    index[(f"suffix:{' '.join(words[n:])}", type_)].add(root)
            if len(words) > 1:
                index[(f"surname:{words[-1]}", type_)].add(root)
                index[(f"acronym:{''.join(w[0] for w in words)}", type_)].add(root)
    return index


def _short_form_targets(short: str, type_: str, index: dict[tuple[str, str], set[int]],
                        types: list[str]) -> set[int]:
    """The clusters of a compatible type that the short key may abbreviate."""
    kinds = ["surname"] if type_ == "PERSON" else ["prefix", "suffix"]
    if type_ != "PERSON" and " " not in short and short.isalpha():
        kinds.append("acronym")
    if type_ == "PERSON" and " " in short:
        return set()
    candidates = [type_] if type_ else types
    return {root for kind in kinds for t in candidates for root in index.get((f"{kind}:{short}", t), ())}


def _merge_short_forms(surfaces: list[tuple[str, str]], sets: _UnionFind, positions: list[int]) -> None:
    """Among the surfaces at `positions` (the stated names)."""
    keys: dict[int, tuple[str, list[str]]] = {}
    for position in positions:
        surface, type_ = surfaces[position]
        root = sets.find(position)
        cluster_type, cluster_keys = keys.get(root, (type_, []))
        keys[root] = (cluster_type or type_, cluster_keys + keys_of(surface))
    index = _short_form_index(keys)
    types = sorted({t for t, _ in keys.values()})
    merges = []
    for position in positions:
        surface, type_ = surfaces[position]
        root = sets.find(position)
        for key in keys_of(surface):
            if len(key) < 2 or not any(ch.isalpha() for ch in key):
                continue
            targets = _short_form_targets(key, type_, index, types) - {root}
            if len(targets) == 1:
                merges.append((targets.pop(), position))
    for target, position in merges:
        sets.union(target, position)


def _merge_by_embedding(surfaces: list[tuple[str, str]], sets: _UnionFind, positions: list[int], embedder: Embedder,
                        auto: float, review: float, decisions: dict[tuple[str, str], bool]) -> list[MergeCandidate]:
    """Compare one representative per cluster of the surfaces at `positions`, type by type, by cosine of
    normalised names."""
    roots: dict[int, int] = {}
    for position in positions:
        roots.setdefault(sets.find(position), position)
    by_type: dict[str, list[int]] = defaultdict(list)
    for position in roots.values():
        by_type[surfaces[position][1]].append(position)
    reviews = []
    for type_, positions in by_type.items():
        if len(positions) < 2:
            continue
        vectors = embedder.embed([normalise(surfaces[p][0]) or surfaces[p][0] for p in positions])
        similarity = np.triu(vectors @ vectors.T, k=1)
        for i, j in zip(*np.nonzero(similarity >= review), strict=True):
            a, b = surfaces[positions[i]][0], surfaces[positions[j]][0]
            decided = decisions.get((a, b), decisions.get((b, a)))
            if decided is True or (decided is None and similarity[i, j] >= auto):
                sets.union(positions[i], positions[j])
            elif decided is None:
                reviews.append(MergeCandidate(a, b, type_, round(float(similarity[i, j]), 4)))
    return reviews


def _clusters(surfaces: list[tuple[str, str]], sets: _UnionFind, counts: Counter[tuple[str, str]],
              descriptions: dict[tuple[str, str], str], canonical: dict[int, tuple[str, str]],
              reviews: list[MergeCandidate], stated: set[tuple[str, str]]) -> Resolution:
    """One cluster per set; its name is its most frequent stated surface (a guess names it only alone)."""
    members: dict[int, list[int]] = defaultdict(list)
    for position in range(len(surfaces)):
        members[sets.find(position)].append(position)
    clusters, lookup = [], {}
    for root, positions in members.items():
        ranked = sorted(positions, key=lambda p: (surfaces[p] not in stated, -counts[surfaces[p]],
                                                  -len(surfaces[p][0]), surfaces[p][0]))
        name, type_ = canonical.get(root, surfaces[ranked[0]])
        if not type_:  # the most frequent typed mention decides
            type_ = next((surfaces[p][1] for p in ranked if surfaces[p][1]), UNKNOWN)
        description = max((descriptions.get(surfaces[p], "") for p in positions), key=len)
        clusters.append(Cluster(name, type_, description, {surfaces[p][0] for p in positions} | {name}))
        for position in positions:
            lookup[(surfaces[position][0].casefold(), surfaces[position][1])] = len(clusters)
    return Resolution(clusters, lookup, reviews)
