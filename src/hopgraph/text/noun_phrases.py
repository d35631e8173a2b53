"""The noun phrases of a text, as a reader would name what it is about: spaCy's noun chunks and
named entities, trimmed to the words that carry their meaning.

A phrase is a base noun phrase ("Marley's ghost", "the Cratchits' Christmas dinner", "his chains")
or a named entity outside one, with
- its leading determiners, pronouns, adverbs, conjunctions and stop words dropped ("the",
  "his", "even", "such" — "his chains" → "chains"); possessives inside are kept ("Marley's ghost");
- its head a noun or a proper noun: a phrase headed by a verb, an adjective or an interjection is
  no phrase of a theme;
- not standing alone as its sentence, as an interjection or as a whole quoted exclamation
  ("Hallo!", "'A merry Christmas, uncle!'", "'Good afternoon!'"): spaCy tags such exclamations as
  proper nouns or subjects, but a thing a text is about is the subject or object of something it
  says;
- not headed by a word of quantity ("a great piece", "a kind"): what it is a piece of is the
  phrase that means something, and is a phrase of its own;
- not run across a break in the sentence ("me;--in life": a dash, a semicolon, a bracket);
- also counted: the phrases said inside it, its head with its compound nouns and its possessors
  ("Cratchits' Christmas dinner" says "Christmas dinner" and "Cratchits" too);
- 1 to MAX_WORDS words, at least one of them not a stop word; leading numerals ("62 Laden", a list
  of illustrations' page number) dropped.
Parsing is the cost (the bundled book: 20–45 s on two busy cores), so callers cache the phrases by
text hash (communities/refresh.py) and parse a text once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from hopgraph.text.nlp import NAME_LABELS, load_model
from hopgraph.text.stop_words import english

VERSION = "noun-phrases-1"  # of cached phrases: bump when the rule changes
MAX_WORDS = 4
BATCH = 64
_LEADING_POS = frozenset({"DET", "PRON", "ADV", "CCONJ", "SCONJ", "ADP", "PART", "PUNCT", "INTJ", "SYM", "X", "SPACE"})
_TRAILING_POS = frozenset({"PUNCT", "PART", "SPACE", "SYM"})
_HEAD_POS = frozenset({"NOUN", "PROPN"})
# Words that are almost always "a … of" something; not "part", "deal" or "number", which name things
# in business text ("spare parts", "the deal", "part number").
_QUANTITIES = frozenset({"piece", "pieces", "kind", "kinds", "sort", "sorts", "lot", "lots", "bit", "bits", "couple",
                         "pair", "half", "plenty", "dozen", "dozens", "handful", "hundreds", "thousands", "millions"})
_ALONE = frozenset({"ROOT", "intj"})  # a noun phrase that is its own sentence, or an interjection
_BREAK = re.compile(r"[;:!?()\[\]—–]|--")  # inside a phrase: it ran across a break in the sentence
_QUOTES = frozenset("'\"‘’“”`")
_STRIP = " _*'\"‘’“”-"  # emphasis marks (Project Gutenberg's _italics_) and quotes at the ends


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def noun_phrases(texts: Sequence[str], nlp: Any = None) -> list[list[str]]:
    """Per text, its noun phrases in text order (repeats kept: they are counted)."""
    nlp = nlp or load_model()
    return [phrases_of(doc) for doc in nlp.pipe(texts, batch_size=BATCH, disable=["lemmatizer"])]


def phrases_of(doc: Any) -> list[str]:
    """The noun phrases of one parsed spaCy Doc (see the module docstring)."""
    chunks = list(doc.noun_chunks)
    covered = {token.i for chunk in chunks for token in chunk}
    entities = [e for e in doc.ents if e.label_ in NAME_LABELS and not any(t.i in covered for t in e)]
    spans = sorted(chunks + entities, key=lambda span: span.start)
    found = []
    for span in spans:
        if phrase := trimmed(span):
            found.append(phrase)
            found += [part for part in parts(span) if part and part != phrase]
    return found


def parts(span: Any) -> list[str]:
    """The phrases said inside a phrase: its head with the nouns compounded onto it ("Christmas
    dinner" of "the Cratchits' Christmas dinner") and its possessors ("Cratchits"). A name said
    inside a longer phrase is still said, and counts toward the name."""
    head, doc = span.root, span.doc
    core = min([c.i for c in head.children if c.dep_ == "compound" and c.i >= span.start], default=head.i)
    found = [trimmed(doc[core : head.i + 1])]
    owners = [c for c in head.children if c.dep_ == "poss" and c.pos_ in _HEAD_POS and c.i >= span.start]
    found += [trimmed(doc[max(owner.left_edge.i, span.start) : owner.i + 1]) for owner in owners]
    return found


def trimmed(span: Any) -> str:
    """The span's meaningful words, or "" when it is not a phrase of a theme."""
    head = span.root
    if head.pos_ not in _HEAD_POS or head.dep_ in _ALONE or head.lower_ in _QUANTITIES or exclaimed(span):
        return ""
    tokens = list(span)
    stop = english()
    while tokens and tokens[0].i != head.i and (tokens[0].pos_ in _LEADING_POS or tokens[0].lower_ in stop
                                                   or tokens[0].is_digit):
        tokens.pop(0)
    while tokens and tokens[-1].i != head.i and tokens[-1].pos_ in _TRAILING_POS:
        tokens.pop()
    words = [t for t in tokens if t.pos_ not in _TRAILING_POS]
    if not 1 <= len(words) <= MAX_WORDS or all(t.lower_ in stop or len(t.text.strip(_STRIP)) < 2 for t in words):
        return ""
    text = " ".join("".join(t.text_with_ws for t in tokens).split()).strip(_STRIP)
    return "" if _BREAK.search(text) else text


def exclaimed(span: Any) -> bool:
    """Whether the span is a whole quoted exclamation: it opens a quotation and only punctuation
    with a "!" or the closing quote follows it ("'Hallo!'", "'A merry Christmas, uncle!'")."""
    doc = span.doc
    first = next((t for t in span if t.text not in _QUOTES), None)
    if first is None or first.i == 0 or doc[first.i - 1].text not in _QUOTES:
        return False
    after = [t.text for t in doc[span.end : span.end + 2]]
    return bool(after) and not after[0][0].isalnum() and any(t == "!" or t in _QUOTES for t in after)


def cached_phrases(texts: dict[int, str], cached: dict[str, str]) -> tuple[dict[int, list[str]], dict[str, str]]:
    """Chunk id → its phrases, parsing only the texts whose hash `cached` (hash → JSON) lacks;
    also returns the new entries to cache."""
    hashes = {chunk_id: text_hash(text) for chunk_id, text in texts.items()}
    todo = {h: texts[chunk_id] for chunk_id, h in hashes.items() if h not in cached}
    new = {h: json.dumps(found, ensure_ascii=False)
           for h, found in zip(todo, noun_phrases(list(todo.values())), strict=True)} if todo else {}
    known = {**cached, **new}
    return {chunk_id: json.loads(known[h]) for chunk_id, h in hashes.items()}, new

