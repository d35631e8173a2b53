"""The thing a question describes, named by the passage whose opening sentence says the description.

"Which Danish heavy metal band from Copenhagen released …?" asks for whatever "is a Danish heavy
metal band from Copenhagen": a passage that opens "Mercyful Fate is a Danish heavy metal band from
Copenhagen, formed in 1981" names the answer as its subject. A passage the question names is its
first hop, not its answer, and is skipped. The opening's predicate (after "is"/"was") must call its
subject by the kind the question asks ("band"), and share at least `MIN_SHARED` of the question's
content words; the passage that shares most wins. When several things fit the description as well
("a landlocked country located in Southern Africa"), the one another passage mentions wins, and
with no single one there is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hopgraph.query.short.spans import content_words, named_in
from hopgraph.records.answers import ShortAnswer
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import stated_sentences

DESCRIBED = "DESCRIBED"
MIN_SHARED = 5  # of the question's content words the opening's predicate says; tuned on half A
KIND_WINDOW = 4  # words after "which"/"what" in which the kind asked for stands
_COPULA = re.compile(r"\s(?:is|was|are|were)\s+(?:an?|the)\s(?P<kind>[^,;.()]*)")
_SUBJECT_END = re.compile(r"\s*[(,;]")


def described_answer(question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    """The subject of the opening sentence that best says what the question describes, or None."""
    kinds = _kind_words(question)
    if not kinds:
        return None
    asked = content_words(question)
    found = [described for hit in hits if (described := _described_by(hit, question, kinds, asked))]
    if not found:
        return None
    most = max(shared for shared, _, _, _ in found)
    tied = [item for item in found if item[0] == most]
    if len({subject for _, subject, _, _ in tied}) > 1:
        # Several things fit the description ("a landlocked country located in Southern Africa"):
        # the rest of the question is about the one another passage mentions ("born in Botswana").
        tied = [item for item in tied if _mentioned_elsewhere(item[1], item[3], hits)]
        if len({subject for _, subject, _, _ in tied}) != 1:
            return None
    shared, subject, opening, hit = tied[0]
    return ShortAnswer(subject, opening, hit.chunk_id, DESCRIBED, float(shared))


def _described_by(hit: Hit, question: str, kinds: set[str], asked: set[str]) -> tuple[int, str, str, Hit] | None:
    """(words shared, subject, opening sentence, hit) when the hit's opening says the description."""
    if named_in(question, hit):
        return None
    sentences = stated_sentences(hit.text[:600])
    if not sentences:  # no text, or only a heading
        return None
    opening = sentences[0]
    copula = _COPULA.search(opening)
    if copula is None or kinds.isdisjoint(content_words(copula["kind"])):
        return None
    shared = len(content_words(opening[copula.start():]) & asked)
    subject = _SUBJECT_END.split(opening[:copula.start()], maxsplit=1)[0].strip(" \"'“”")
    return (shared, subject, opening, hit) if shared >= MIN_SHARED and subject else None


def _mentioned_elsewhere(subject: str, own: Hit, hits: Sequence[Hit]) -> bool:
    pattern = re.compile(rf"\b{re.escape(subject)}\b")
    return any(hit is not own and subject not in hit.title and pattern.search(hit.text) for hit in hits)


def _kind_words(question: str) -> set[str]:
    """The words that may name the kind asked for: those right after "which"/"what" (and "is a")."""
    words = re.findall(r"\w+", question.lower())
    if not words or words[0] not in ("which", "what"):
        return set()
    window = [word for word in words[1:1 + KIND_WINDOW + 2] if word not in ("is", "was", "an", "a", "the")]
    return content_words(" ".join(window[:KIND_WINDOW]))
