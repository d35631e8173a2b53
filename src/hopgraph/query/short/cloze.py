"""A question that ends in its question word reads as a sentence of the evidence with a gap.

"… a painter known for his precisionist depictions of what?" is the evidence's "… known for his
precisionist depictions of urban landscapes that are …" with the answer cut out: the words before
the question word (and those after it, when it is not last: "… an annual output of what in 2011?")
are looked up in the hits' sentences, and the words that stand in the gap are the answer, up to the
first comma, bracket or clause word. A kind after the question word bounds the gap the same way
("… named after which Native American tribes?" → "named after the Lakota and Dakota Sioux Native
American tribes"), and a capitalised kind is part of the name ("on what river?" → "Ohio River").
A "who" gap is a name: "… created by who?" is "Reg Watson" of "created by TV executive Reg Watson",
where a "what" gap would keep the role ("the German mathematician Carl Runge" → "mathematician").
Longer matched context wins; ties go to the sentence that
shares most with the question. A question that opens with its question word ("What is …?") has no
gap to fill and is left to the entity candidates, except "What does Anvayam make?", which is the
evidence's "Anvayam makes flywheel housings" turned round (`object_answer`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hopgraph.query.short.expected import HEAD_NOUNS, MAKES
from hopgraph.query.short.spans import MAX_CHARS, content_words
from hopgraph.records.answers import ShortAnswer
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import stated_sentences
from hopgraph.text.stop_words import english

CLOZE = "CLOZE"
QUESTION_WORDS = frozenset({"what", "whom", "who"})
CONTEXT_WORDS = (5, 4, 3, 2, 1)  # words before the gap tried, longest first
MAX_AFTER = 3  # words after the question word that may bound the gap ("in 2011")
MAX_ANSWER_WORDS = 6
# Words that end the answer's phrase: a new clause or a preposition that starts a modifier.
CLAUSE_WORDS = frozenset({"that", "which", "who", "whom", "whose", "where", "when", "in", "on", "at", "for", "from",
                          "with", "by", "since", "during", "is", "was", "are", "were", "has", "had", "to", "as"})
ARTICLES = frozenset({"the", "a", "an"})
POSSESSIVES = frozenset({"its", "their", "his", "her", "our"})  # "supplies Halvek with its … compound"
JOINERS = frozenset({"and", "or", "of", "de", "von", "van"})  # lower-case words inside a name
# "what type of cable", "which division does": a kind that no entity label names
_KIND_ASKED = re.compile(r"\b(?:what|which)\s+(?:(?:type|kind|sort|form)\s+of\s+(?P<noun>[a-z]{4,})\b|"
                         r"(?P<noun2>[a-z]{4,})\s+(?:does|did|do|is|was|are|were)\b)", re.IGNORECASE)
_WORD = re.compile(r"[\w'’.-]+")
PAST = {"make": "made", "sell": "sold", "build": "built", "buy": "bought", "cast": "cast"}  # irregular
SUBJECT_GAP = 4  # words that may stand between the subject and its verb ("Anvayam also makes")
_STOP_AT = re.compile(r"[,;:()\[\]\"“”]|\.(?:\s|$)")


@dataclass(frozen=True)
class _Gap:
    before: tuple[str, ...]  # the question's words before the question word
    after: tuple[str, ...]  # and after it (at most MAX_AFTER)
    person: bool = False  # "who"/"whom": the gap is a name, not the role written before it


def cloze_answer(question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    """The words that fill the question's gap in a sentence of the hits, or None."""
    gap = _gap_of(question)
    if gap is None:
        return None
    asked = content_words(question)
    sentences = _sentences(hits)
    for size in CONTEXT_WORDS:
        before = gap.before[-size:]
        if len(before) < size or not content_words(" ".join(before)):
            continue
        found = [(len(content_words(text) & asked), -rank, answer, text, hit)
                 for rank, (text, hit) in enumerate(sentences)
                 if (answer := _filled(before, gap.after, text, gap.person))]
        if found:
            _, _, answer, text, hit = max(found, key=lambda f: f[:2])
            return ShortAnswer(answer, text, hit.chunk_id, CLOZE, float(size))
    return None


def modifier_answer(question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    """"What type of cable …?", "Which division does … fight in?": the answer is the word the
    evidence puts before the kind ("coaxial cable", "the middleweight division"), or None."""
    asked_kind = _KIND_ASKED.search(question)
    kind = (asked_kind["noun"] or asked_kind["noun2"]).lower() if asked_kind else ""
    if not kind or kind in english() or kind in HEAD_NOUNS:
        return None  # a kind an entity label names ("which city") is left to the entities
    asked = content_words(question)
    before = re.compile(rf"\b(?P<word>[a-z][\w-]+)\s+{re.escape(kind)}s?\b")
    found = [(len(content_words(text) & asked), -rank, match["word"], text, hit)
             for rank, (text, hit) in enumerate(_sentences(hits))
             for match in before.finditer(text)
             if match["word"] not in english() and match["word"] not in asked]
    if not found:
        return None
    _, _, word, text, hit = max(found, key=lambda f: f[:2])
    return ShortAnswer(word, text, hit.chunk_id, CLOZE, 1.0)


def object_answer(question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    """"What does Anvayam make?": the phrase after "Anvayam makes" (or "made", "is making") in the
    hits, or None. The subject is matched by its first word, as a passage shortens a company's name."""
    asked = MAKES.match(question.strip())
    if asked is None:
        return None
    subject = re.escape(asked["subject"].split()[0])
    pattern = re.compile(rf"\b{subject}\b(?:\W+\w+){{0,{SUBJECT_GAP}}}?\W+{_verb_forms(asked['verb'].lower())}\b\s+"
                         r"(?P<gap>.+)", re.IGNORECASE)
    words = content_words(question)
    found = [(len(content_words(text) & words), -rank, answer, text, hit)
             for rank, (text, hit) in enumerate(_sentences(hits))
             if (match := pattern.search(text)) and (answer := _object_phrase(match["gap"]))]
    if not found:
        return None
    _, _, answer, text, hit = max(found, key=lambda f: f[:2])
    return ShortAnswer(answer, text, hit.chunk_id, CLOZE, 1.0)


def _object_phrase(text: str) -> str | None:
    """The object up to punctuation or a clause word, a list kept whole ("flywheel housings and
    clutch housings"); for "supplies Dhruvex with FA-9 axle beams", what comes after "with"."""
    given = re.match(r"[^,;.]{1,60}?\s+with\s+(?P<what>.+)", text)
    if given is not None:
        text = given["what"]
    stop = _STOP_AT.search(text)
    words = (text[:stop.start()] if stop else text).split()
    if words[:1] and words[0].lower() in ARTICLES | POSSESSIVES:
        words = words[1:]
    end = next((i for i, word in enumerate(words) if word.lower() in CLAUSE_WORDS), len(words))
    words = words[:min(end, MAX_ANSWER_WORDS)]
    if not words or words[0].lower() in english():
        return None  # "supplies us under …": no product named
    return " ".join(words)


def _verb_forms(verb: str) -> str:
    """A pattern for the verb's forms: "supply" → supply, supplies, supplied, supplying."""
    past = PAST.get(verb, "")
    if verb.endswith("y"):
        forms = [verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"]
    elif verb.endswith("e"):
        forms = [verb, verb + "s", verb + "d", verb[:-1] + "ing"]
    else:
        forms = [verb, verb + "s", verb + "es", verb + "ed", verb + "ing"]
    return "(?:" + "|".join(sorted({*forms, past} - {""}, key=len, reverse=True)) + ")"


def _sentences(hits: Sequence[Hit]) -> list[tuple[str, Hit]]:
    return [(text, hit) for hit in hits for text in stated_sentences(hit.text[:MAX_CHARS])]


def _gap_of(question: str) -> _Gap | None:
    words = _WORD.findall(question.strip().rstrip("?").strip())
    lowered = [word.lower() for word in words]
    wh = max((i for i, word in enumerate(lowered) if word in QUESTION_WORDS | {"which"}), default=None)
    if wh is None or wh < 2 or len(words) - wh - 1 > MAX_AFTER:
        return None
    after = tuple(lowered[wh + 1:])
    if lowered[wh] == "which" and not after:
        return None  # a relative "which" at the end names no gap
    # "… named after which Native American tribes?": the kind bounds the gap as the words after it do
    return _Gap(tuple(lowered[:wh]), after, lowered[wh] in ("who", "whom"))


def _filled(before: Sequence[str], after: Sequence[str], sentence: str, person: bool = False) -> str | None:
    pattern = r"\b" + r"\W+".join(re.escape(word) for word in before) + r"\b\W*(?P<gap>.+)"
    match = re.search(pattern, sentence, re.IGNORECASE)
    if match is None:
        return None
    text = match["gap"]
    if after:
        end = re.search(r"\W+" + r"\W+".join(re.escape(word) for word in after) + r"\b", text, re.IGNORECASE)
        if end is None:
            return None
        if len(text[:end.start()].split()) > MAX_ANSWER_WORDS:
            return None  # the bounding words stand too far on to close this gap
        quoted = re.search(r"[\"“]([^\"”]+)(?:[\"”]|$)", text[:end.start()])
        gap = quoted.group(1) if quoted else _phrase(text[:end.start()], person)
        bound = text[end.start():end.end()].strip(" ,;:")
        # "on the Ohio River" for "on what river": a capitalised kind is part of the name
        named = bool(bound) and all(word[:1].isupper() for word in bound.split())
        return f"{gap} {bound}" if gap and named and not quoted else gap
    return _phrase(text, person)


def _phrase(text: str, person: bool = False) -> str | None:
    """The gap's words up to punctuation or a clause word, without a leading article; for a person,
    the name after the role written before it ("created by TV executive Reg Watson")."""
    stop = _STOP_AT.search(text)
    words = text[:stop.start()].split() if stop else text.split()
    if words[:1] and words[0].lower() in ARTICLES:
        words = words[1:]
    if person:
        named = next((i for i in range(1, len(words)) if words[i][:1].isupper() and words[i - 1][:1].islower()
                      and words[i - 1] not in JOINERS and words[i - 1].lower() not in CLAUSE_WORDS), None)
        words = words[named:] if named is not None else words
    if not words or (words[0].lower() in english() and not words[0][0].isdigit()):
        return None  # "Lilu is also mentioned …": not a phrase that names anything
    kept: list[str] = []
    for i, word in enumerate(words):
        if _ends_phrase(word, words[i + 1:i + 2], kept) or len(kept) == MAX_ANSWER_WORDS:
            break
        kept.append(word)
    return " ".join(kept).rstrip(".'’") or None


def _ends_phrase(word: str, following: Sequence[str], kept: Sequence[str]) -> bool:
    """A clause word; "and" before a lower-case word ("Betty Cohen and launched"); a name after a
    common noun ("mathematician Carl Runge": the noun is the kind asked for)."""
    if word.lower() in CLAUSE_WORDS:
        return True
    if word.lower() in ("and", "or"):
        return bool(following) and following[0][:1].islower()
    return bool(kept) and kept[-1][:1].islower() and kept[-1] not in JOINERS and word[:1].isupper()
