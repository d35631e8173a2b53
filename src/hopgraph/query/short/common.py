"""What two named things have in common: a common noun both of their passages use.

"What type of media does Hot Pixel and PlayStation Portable have in common?" is answered by no
entity: the answer is a kind ("video game") that the passage of each named thing says. Both
passages (the hits titled with a name the question says) are tagged (no parser, no recogniser),
and the nouns (or noun pairs, "video game") whose lemmas both use, and the question does not, are
the candidates; the one that stands earliest in both wins. A plural kind ("which occupations …")
takes every shared noun, in the first passage's order ("producer, director, and writer").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hopgraph.linkgraph.names import strip_disambiguation
from hopgraph.query.short.spans import named_in
from hopgraph.records.answers import ShortAnswer
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import stated_sentences

COMMON = "COMMON"
PASSAGE_CHARS = 600  # of each passage: what a thing is, its passage says first
MAX_LISTED = 4
TAGGER_ONLY = ("parser", "ner", "senter")
_SHARED = re.compile(r"\bin common\b|\bboth\b.*\b(what|which)\b|\b(what|which)\b.*\bboth\b", re.IGNORECASE)
_PLURAL_KIND = re.compile(r"\b(?:what|which)\s+(?:\w+\s+)?(\w+s)\b", re.IGNORECASE)

Term = tuple[str, ...]  # the lemmas of a noun, or of a noun pair


def shared_answer(question: str, hits: Sequence[Hit], nlp: Any) -> ShortAnswer | None:
    """The common noun the two passages the question names share, or None."""
    if not _SHARED.search(question):
        return None
    pair = _named_pair(question, hits)
    if pair is None:
        return None
    first, second = nlp.pipe([hit.text[:PASSAGE_CHARS] for hit in pair], disable=_disabled(nlp))
    asked = {token.lemma_.lower() for token in nlp(question, disable=_disabled(nlp))} | {
        word.lower() for word in re.findall(r"\w+", question)}
    terms_a, terms_b = _terms(first, asked), _terms(second, asked)
    shared = sorted(set(terms_a) & set(terms_b), key=lambda term: terms_a[term][0] + terms_b[term][0])
    if not shared:
        return None
    answer = _listed(shared, terms_a) if _PLURAL_KIND.search(question) else _single(shared, terms_a)
    return ShortAnswer(answer, _sentence_with(pair[0].text, answer.split(",")[0]), pair[0].chunk_id, COMMON, 1.0)


def _named_pair(question: str, hits: Sequence[Hit]) -> tuple[Hit, Hit] | None:
    named: list[Hit] = []
    for hit in hits:
        bare = replace(hit, title=strip_disambiguation(hit.title))  # "Flyboys (film)" is named "Flyboys"
        if named_in(question, bare) and all(other.title != hit.title for other in named):
            named.append(hit)
    return (named[0], named[1]) if len(named) >= 2 else None


def _terms(doc: Any, asked: set[str]) -> dict[Term, tuple[int, str]]:
    """Each noun lemma (and noun pair) of the passage: where it first stands and how it is written."""
    terms: dict[Term, tuple[int, str]] = {}
    tokens = list(doc)
    for i, token in enumerate(tokens):
        if token.pos_ != "NOUN" or not token.is_alpha or token.lemma_.lower() in asked:
            continue
        terms.setdefault((token.lemma_.lower(),), (i, token.lemma_.lower()))
        before = tokens[i - 1] if i else None
        if before is not None and before.pos_ == "NOUN" and before.is_alpha and before.lemma_.lower() not in asked:
            terms.setdefault((before.lemma_.lower(), token.lemma_.lower()),
                             (i - 1, f"{before.text.lower()} {token.lemma_.lower()}"))
    return terms


def _single(shared: Sequence[Term], terms: dict[Term, tuple[int, str]]) -> str:
    """A shared noun pair ("video game") before a single noun ("game")."""
    pairs = [term for term in shared if len(term) == 2]
    return terms[(pairs or list(shared))[0]][1]


def _listed(shared: Sequence[Term], terms: dict[Term, tuple[int, str]]) -> str:
    nouns = sorted((term for term in shared if len(term) == 1), key=lambda term: terms[term][0])[:MAX_LISTED]
    words = [terms[term][1] for term in nouns]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + ", and " + words[-1]


def _sentence_with(text: str, word: str) -> str:
    sentences = stated_sentences(text[:PASSAGE_CHARS])
    return next((s for s in sentences if word.lower() in s.lower()), sentences[0] if sentences else text[:200])


def _disabled(nlp: Any) -> list[str]:
    return [name for name in TAGGER_ONLY if name in nlp.pipe_names]
