"""Community labels: the phrases that set a community's text apart, by class-based TF-IDF.

BERTopic's c-TF-IDF with communities as the classes. A community's text is its chunks, each
weighted by the community's *share* of it: how many of the chunk's community entities are its
members. One level of the tree partitions the entities, so a chunk's shares add up to one, the
classes of a level split the corpus between them, and a phrase's frequency over all classes is its
frequency in the corpus. Per level, tf being a class's phrase counts scaled to sum to one, A the
mean number of phrases per class and f the phrase's frequency in the corpus:

    score(phrase, community) = tf · log(1 + A / f)

Phrases are the noun phrases of the chunks (hopgraph.text.noun_phrases: spaCy's noun chunks and
named entities, determiners and pronouns dropped, possessives kept — "Marley's ghost", never an
interjection, a verb or a stray fragment), counted by their stemmed words ("Spirit" and "spirits"
are one phrase, shown in its most frequent written form). Without spaCy they are 1-3 word n-grams
that cross no punctuation and neither begin nor end with a stopword ("Ghost of Christmas Past"
stays whole). Choosing a community's labels from its best
phrases: a phrase belongs to the sibling holding most of its occurrences (siblings never share a
label); a phrase gives way to a longer one that holds most of its occurrences ("Tiny" → "Tiny Tim");
a phrase that repeats the words of a label already chosen is skipped. bench/themes.py measures this
against KeyBERT-style noun phrases near the community's centroid embedding (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import Stemmer
from scipy import sparse

from hopgraph.communities.reports import community_chunks
from hopgraph.records.communities import Community, CommunityReport, CommunityTree
from hopgraph.records.knowledge import KnowledgeGraph
from hopgraph.text import noun_phrases
from hopgraph.text.stop_words import english

ChunkTexts = Callable[[set[int]], dict[int, str]]
ChunkPhrases = Callable[[dict[int, str]], dict[int, list[str]]]  # chunk texts → each chunk's noun phrases
Key = tuple[str, ...]  # a phrase as its stemmed words

MAX_WORDS = 3  # n-grams of 1 to 3 words, BERTopic's usual range
LABELS = 5  # kept per community; answers show the first three
CANDIDATES = 60  # a community's best phrases that its labels are chosen from
OVERLAP = 0.5  # a phrase sharing this share of its content words with a chosen label repeats it
CONTAINED = 0.5  # a phrase gives way to a longer one holding this share of its occurrences …
REPEATED = 2  # … and said at least this often in the corpus (once is a turn of phrase, not a name)
# What a report's labels were made from: a change of the noun-phrase rule makes them again.
NOUN_PHRASES, NGRAMS = noun_phrases.VERSION, "ngrams-1"
# Words that report speech: in fiction and in the news they stand next to every name ("said Scrooge").
REPORTING = frozenset({"said", "says", "asked", "replied", "cried", "told", "added", "exclaimed"})
_SEGMENT = re.compile(r"[^\w\s'’-]+|\n[ \t]*\n")  # punctuation and blank lines end a phrase
_TITLE = re.compile(r"\b(Mr|Mrs|Ms|Dr|St)\.")  # "Mrs. Cratchit" is one phrase, not two segments
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


@cache
def stopwords() -> frozenset[str]:
    """spaCy's English stop words (bundled: hopgraph.text.stop_words) and the reporting verbs."""
    return english() | REPORTING


@cache
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    """A word's key: lower-cased, possessive dropped, stemmed ("Scrooge's" → "scroog")."""
    word = word.lower().replace("’", "'")
    return _stemmer().stemWord(word[:-2] if word.endswith("'s") else word)


@cache
def stopped_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in stopwords())


def content_words(key: Key) -> frozenset[str]:
    """The phrase's stemmed words that are not stopwords (what two labels may not share)."""
    return frozenset(key) - stopped_stems()


def ngrams(text: str, max_words: int = MAX_WORDS, stop: frozenset[str] | None = None) -> Iterable[tuple[Key, str]]:
    """(key, written form) of every candidate phrase of the text."""
    stop = stopwords() if stop is None else stop
    for segment in _SEGMENT.split(_TITLE.sub(r"\1", text)):
        words = [w.strip("'’-") for w in _WORD.findall(segment)]
        folded = [w.lower().replace("’", "'") for w in words]
        # A phrase may hold a stopword or a lone letter inside ("Ghost of Christmas"), never at an end.
        edge = [len(w) > 1 and w not in stop for w in folded]
        for i in range(len(words)):
            if not edge[i]:
                continue
            for end in range(i + 1, min(i + max_words, len(words)) + 1):
                if edge[end - 1] and not folded[end - 1].endswith("'s"):
                    yield tuple(stem(w) for w in folded[i:end]), " ".join(words[i:end])


@dataclass
class Phrases:
    """The phrases of a set of chunks: a chunk × phrase count matrix and each phrase's written form."""

    chunk_ids: list[int]
    keys: list[Key]
    surfaces: list[str]  # the most frequent written form of each phrase
    counts: sparse.csr_matrix  # (chunk row, phrase column) → occurrences
    column: dict[Key, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.column = {key: i for i, key in enumerate(self.keys)}


def phrase_counts(texts: dict[int, str], max_words: int = MAX_WORDS, stop: frozenset[str] | None = None) -> Phrases:
    """Every phrase of every chunk, counted in one pass (the vocabulary is the phrases seen)."""
    chunk_ids = sorted(texts)
    counts, keys, surfaces = count_matrix(((row, key, surface) for row, chunk_id in enumerate(chunk_ids)
                                           for key, surface in ngrams(texts[chunk_id], max_words, stop)),
                                          len(chunk_ids))
    return Phrases(chunk_ids, keys, surfaces, counts)


def noun_phrase_counts(found: dict[int, list[str]]) -> Phrases:
    """The noun phrases of every chunk (chunk id → its phrases, repeats kept), counted as phrases."""
    chunk_ids = sorted(found)
    items = ((row, key, surface) for row, chunk_id in enumerate(chunk_ids) for surface in found[chunk_id]
             if content_words(key := tuple(words(surface))))
    counts, keys, surfaces = count_matrix(items, len(chunk_ids))
    return Phrases(chunk_ids, keys, surfaces, counts)


def count_matrix(found: Iterable[tuple[int, Key, str]],
                 n_rows: int) -> tuple[sparse.csr_matrix, list[Key], list[str]]:
    """(row, phrase key, written form) occurrences → the row × phrase count matrix, the keys in
    column order, and each phrase's most frequent written form."""
    column: dict[Key, int] = {}
    forms: list[Counter[str]] = []
    rows, cols = [], []
    for row, key, surface in found:
        if key not in column:
            column[key] = len(column)
            forms.append(Counter())
        forms[column[key]][surface] += 1
        rows.append(row)
        cols.append(column[key])
    counts = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_rows, len(column)))
    counts.sum_duplicates()
    return counts, list(column), [_display(f) for f in forms]


def _display(forms: Counter[str]) -> str:
    """The most frequent written form; on a tie the one with more capitals ("Tiny Tim", not "tiny tim")."""
    return max(forms.items(), key=lambda kv: (kv[1], sum(c.isupper() for c in kv[0]), kv[0]))[0]


def chunk_shares(graph: KnowledgeGraph, tree: CommunityTree, chunk_ids: Sequence[int]) -> sparse.csr_matrix:
    """(community id, chunk row) → the community's share of the chunk's community entities. It is the
    same at every level, since each level partitions the same entities (the roots do it first)."""
    column = {chunk_id: i for i, chunk_id in enumerate(chunk_ids)}
    rows, cols, values = [], [], []
    for community in tree.communities:
        for chunk_id, count in community_chunks(graph, community).items():
            if chunk_id in column:
                rows.append(community.id)
                cols.append(column[chunk_id])
                values.append(float(count))
    counts = sparse.csr_matrix((values, (rows, cols)), shape=(len(tree), len(chunk_ids)))
    totals = np.asarray(counts[[c.id for c in tree.at_level(0)]].sum(axis=0)).ravel()
    return sparse.csr_matrix(counts @ sparse.diags(1.0 / np.maximum(totals, 1.0)))


def class_tfidf(class_counts: sparse.csr_matrix) -> sparse.csr_matrix:
    """BERTopic's c-TF-IDF: class term frequencies scaled to sum to one, × log(1 + A / f)."""
    frequency = np.asarray(class_counts.sum(axis=0)).ravel()
    row_sums = np.asarray(class_counts.sum(axis=1)).ravel()
    idf = np.log1p(float(row_sums.mean()) / np.maximum(frequency, 1e-12))
    return sparse.csr_matrix(sparse.diags(1.0 / np.maximum(row_sums, 1e-12)) @ class_counts @ sparse.diags(idf))


@dataclass
class Candidates:
    """What a community's labels are chosen from: its best phrases, and how often it says each."""

    ranked: list[tuple[Key, float]]  # best first
    counts: dict[Key, float]  # every phrase of the community → weighted occurrences


def row_items(matrix: sparse.csr_matrix, row: int) -> tuple[np.ndarray, np.ndarray]:
    start, end = matrix.indptr[row], matrix.indptr[row + 1]
    return matrix.indices[start:end], matrix.data[start:end]


def candidates_of(scores: sparse.csr_matrix, counts: sparse.csr_matrix, row: int, keys: Sequence[Key],
                  limit: int = CANDIDATES) -> Candidates:
    columns, values = row_items(scores, row)
    order = np.lexsort((columns, -values))[:limit]  # best score first, ties by column
    count_columns, count_values = row_items(counts, row)
    return Candidates([(keys[columns[i]], float(values[i])) for i in order],
                      {keys[c]: float(v) for c, v in zip(count_columns, count_values, strict=True)})


def sibling_groups(communities: Sequence[Community]) -> list[list[Community]]:
    """Communities with the same parent (the roots are siblings of each other)."""
    groups: dict[int | None, list[Community]] = {}
    for community in communities:
        groups.setdefault(community.parent, []).append(community)
    return list(groups.values())


def owners(pools: dict[int, Candidates], group: Sequence[Community], longer: dict[Key, list[Key]]) -> dict[Key, int]:
    """Each phrase a sibling could take (its candidates and their longer forms) → the sibling holding
    most of its occurrences (ties: the lower id): no two siblings share a label, and a label's
    chunks are mostly its own community's."""
    keys = {key for c in group for key, _ in pools[c.id].ranked}
    keys |= {form for key in keys for form in longer.get(key, ())}
    owner = {}
    for key in keys:
        held = [(pools[c.id].counts.get(key, 0.0), -c.id) for c in group]
        owner[key] = -max(held)[1]
    return owner


def longer_forms(phrases: Phrases) -> dict[Key, list[Key]]:
    """phrase → the longer phrases said REPEATED times or more that contain it as consecutive words."""
    frequency = np.asarray(phrases.counts.sum(axis=0)).ravel()
    index: dict[Key, list[Key]] = {}
    for key, times in zip(phrases.keys, frequency, strict=True):
        if len(key) == 1 or times < REPEATED:
            continue
        for n in range(1, len(key)):
            for i in range(len(key) - n + 1):
                index.setdefault(key[i:i + n], []).append(key)
    return index


def repeats(words: frozenset[str], chosen: Sequence[frozenset[str]]) -> bool:
    """Whether the phrase shares OVERLAP of its (or a chosen label's) content words with a chosen label."""
    return any(len(words & other) >= OVERLAP * min(len(words), len(other)) for other in chosen)


def choose(pool: Candidates, allowed: Callable[[Key], bool], longer: dict[Key, list[Key]], k: int) -> list[Key]:
    """Up to k labels: the best allowed phrases, each replaced by a longer form that holds most of
    its occurrences, none repeating the words of one chosen before."""
    chosen: list[Key] = []
    words: list[frozenset[str]] = []
    for key, _ in pool.ranked:
        if not allowed(key):
            continue
        key = _longest_holding(key, pool.counts, longer, allowed)
        key_words = content_words(key)
        if key_words and key not in chosen and not repeats(key_words, words):
            chosen.append(key)
            words.append(key_words)
            if len(chosen) == k:
                break
    return chosen


def _longest_holding(key: Key, counts: dict[Key, float], longer: dict[Key, list[Key]],
                     allowed: Callable[[Key], bool]) -> Key:
    held = counts.get(key, 0.0)
    forms = [f for f in longer.get(key, ()) if counts.get(f, 0.0) >= CONTAINED * held and allowed(f)]
    return max(forms, key=lambda f: (counts[f], len(f), f)) if forms else key


def community_labels(graph: KnowledgeGraph, tree: CommunityTree, chunk_texts: ChunkTexts,
                     k: int = LABELS, chunk_phrases: ChunkPhrases | None = None) -> dict[int, list[str]]:
    """community id → its labels, most distinctive first: noun phrases when `chunk_phrases` gives
    them, else n-grams."""
    chunk_ids = sorted({c for e in graph.entities.values() for c in e.chunks})
    texts = chunk_texts(set(chunk_ids))
    phrases = noun_phrase_counts(chunk_phrases(texts)) if chunk_phrases else phrase_counts(texts)
    return labels_of(phrases, graph, tree, k)


def labels_of(phrases: Phrases, graph: KnowledgeGraph, tree: CommunityTree, k: int = LABELS) -> dict[int, list[str]]:
    """community id → its labels chosen from these counted phrases, level by level."""
    shares = chunk_shares(graph, tree, phrases.chunk_ids)
    longer = longer_forms(phrases)
    labels: dict[int, list[str]] = {}
    for level in range(tree.levels):
        partition = tree.at_level(level)
        counts = sparse.csr_matrix(shares[[c.id for c in partition]] @ phrases.counts)
        scores = class_tfidf(counts)
        pools = {c.id: candidates_of(scores, counts, row, phrases.keys) for row, c in enumerate(partition)}
        for group in sibling_groups([c for c in partition if c.level == level]):
            for community_id, chosen in label_group(pools, group, longer, k).items():
                labels[community_id] = [phrases.surfaces[phrases.column[key]] for key in chosen]
    return labels


def label_group(pools: dict[int, Candidates], group: Sequence[Community], longer: dict[Key, list[Key]],
                k: int) -> dict[int, list[Key]]:
    """The labels of a group of siblings, each from the phrases it owns."""
    owner = owners(pools, group, longer)
    return {c.id: choose(pools[c.id], lambda key, c=c.id: owner.get(key) == c, longer, k) for c in group}


def label_reports(reports: Sequence[CommunityReport], graph: KnowledgeGraph, tree: CommunityTree,
                  chunk_texts: ChunkTexts, chunk_phrases: ChunkPhrases | None = None) -> list[CommunityReport]:
    """Labels the reports that have none yet, or labels made another way (all of the tree's are
    computed at once: c-TF-IDF compares the communities of a level), and returns those it
    labelled, to be stored."""
    method = NOUN_PHRASES if chunk_phrases else NGRAMS
    unlabelled = [r for r in reports if r.labels is None or r.labelled_by != method]
    if unlabelled:
        labels = community_labels(graph, tree, chunk_texts, chunk_phrases=chunk_phrases)
        for report in unlabelled:
            report.labels = labels.get(report.community_id, [])
            report.labelled_by = method
    return unlabelled


def words(text: str) -> list[str]:
    """The text's stemmed words, as labels are matched (`mentions`)."""
    return [stem(w.strip("'’-")) for w in _WORD.findall(_TITLE.sub(r"\1", text)) if w.strip("'’-")]


def mentions(label_words: Sequence[str], text_words: Sequence[str]) -> bool:
    """Whether the label's stemmed words occur one after another among the text's."""
    n = len(label_words)
    return n > 0 and any(text_words[i:i + n] == list(label_words) for i in range(len(text_words) - n + 1))
