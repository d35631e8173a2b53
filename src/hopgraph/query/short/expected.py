"""What kind of answer a question wants, read from its words: no model.

The kinds are spaCy's entity labels (a "what river" question wants LOC, "who" wants PERSON),
plus YESNO ("Are both … American?", also as the last sentence: "A has an OBE. Does B also have
one?") and CHOICE ("Who was born first, A or B?", "Was A or B born first?", "Who was born first out
of A and B?", whose answer is one of the options the question names). A question this module
cannot read wants ANY: then the candidates are noun phrases as well as entities. "Why …", "How
did …", "What happened to …", "Who was Marley?" and instructions ("Describe …", "Write a diary
entry …") want EXPLAIN, a reason, an account or a description, which no span of the evidence is:
such a question gets no short answer. "What does Anvaya Foundry make?" asks for a product: any
phrase but a company, a person or a place (`excluded`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

YESNO, CHOICE, ANY, EXPLAIN = "YESNO", "CHOICE", "ANY", "EXPLAIN"
PLACE = frozenset({"GPE", "LOC", "FAC"})
PERSON = frozenset({"PERSON"})
DATE = frozenset({"DATE"})
NUMBER = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})

SCHOOL = frozenset({"ORG", "FAC"})  # "where did … graduate from / study / work": a school or an employer
SCHOOLING = frozenset({"graduate", "graduated", "study", "studied", "educated", "attend", "attended", "work"})
AUXILIARIES = frozenset(["is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had",
                         "will", "would", "should"])
# The noun after "what"/"which" (or "in what …"), mapped to the labels its answer carries.
HEAD_NOUNS: dict[str, frozenset[str]] = {}
for _labels, _words in (
    (PLACE, "city town village country state county province region capital place neighborhood neighbourhood "
            "borough island district municipality suburb area location continent nation territory"),
    (frozenset({"LOC", "GPE"}), "river lake mountain sea ocean valley desert bay range peninsula"),
    (frozenset({"ORG"}), "company band group team organization organisation university college school label "
                         "club party network airline brand newspaper magazine corporation firm studio channel "
                         "league institution agency publisher manufacturer retailer chain station "
                         "maker carmaker automaker supplier vendor customer buyer subsidiary"),  # business documents
    (frozenset({"WORK_OF_ART", "ORG", "PRODUCT"}), "film movie album song book novel show series game opera "
                                                   "play single musical sitcom documentary"),
    (frozenset({"NORP"}), "nationality religion ethnicity"),
    (DATE, "year date decade century month day era"),
    (NUMBER, "population amount size area height length"),
    (frozenset({"LANGUAGE"}), "language"),
    (frozenset({"EVENT"}), "event war battle competition tournament championship election festival"),
    (frozenset({"WORK_OF_ART", "ORG", "EVENT", "PRODUCT"}), "award prize honour honor medal"),
    (PERSON, "person actor actress singer director president king queen author player man woman writer "
             "musician politician artist composer producer poet footballer coach founder husband wife son "
             "daughter father mother brother sister leader governor senator emperor prince princess "
             "character rapper comedian scientist philosopher architect painter novelist screenwriter "
             "model athlete cricketer dancer designer drummer vocalist lyricist judge lawyer entrepreneur "
             "businessman businesswoman chef manager executive astronaut officer soldier host presenter "
             "historian biographer bishop archbishop pope duke earl lord captain boxer wrestler"),
):
    for _word in _words.split():
        HEAD_NOUNS[_word] = _labels
        HEAD_NOUNS[_word + "s"] = _labels

_CHOICE = re.compile(r",\s*(?:the\s+)?(?P<a>[^,]+?)\s+or\s+(?P<b>[^?]+?)\s*\?*\s*$", re.IGNORECASE)
# "Between A and B, which genus …?": the options come first.
_BETWEEN = re.compile(r"^between\s+(?:the\s+)?(?P<a>[^,?]+?)\s+and\s+(?P<b>[^,?]+?)\s*,\s*(?:which|who|what)\b",
                      re.IGNORECASE)
# The options without a comma before them: "Which band was formed first The Exies or Circus Diablo?",
# "Was David Fennario or Peter Emanuel Falck born first?", "Who was born first out of A and B?".
_COMPARED = (r"(?:first|earlier|later|last|older|younger|sooner|more|less|fewer|longer|shorter|larger|smaller|"
             r"bigger|higher|lower|farther|further)")
_AFTER_COMPARED = re.compile(rf"\b{_COMPARED}\s+(?:the\s+)?(?P<a>[A-Z][^,?]*?)\s+or\s+(?P<b>[^?]+?)\s*\?*\s*$")
_ASKED_OR = re.compile(rf"^(?i:was|were|is|are|did)\s+(?:the\s+)?(?P<a>[^,?]+?)\s+or\s+(?P<b>[^?]+?)"
                       rf"(?:\s+[a-z]+)*\s+{_COMPARED}\s*\?*\s*$")
_OUT_OF = re.compile(r"^(?i:who|which)\b.*?\bout of\s+(?:the\s+)?(?P<a>[^,?]+?)\s+and\s+(?P<b>[^?]+?)\s*\?*\s*$")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_WORD = re.compile(r"[A-Za-z]+")
# "Who was Marley?" asks what Marley was (Scrooge's partner), not for another name near his.
_WHO_IS_NAME = re.compile(r"^(?i:who\s+(?:is|was|are|were))\s+(?:[A-Z][\w.'’-]*\s*)+\?*$")
# "What does Halvek Friction supply to Corvane?": the object of a making or trading verb is a
# product, never the company, person or place beside it in the evidence ("Grafitek Minerals supplies
# Halvek with …").
MAKES = re.compile(r"^what\s+(?:does|do|did)\s+(?P<subject>.+?)\s+(?P<verb>make|produce|manufacture|supply|sell|"
                   r"build|cast|export|provide|offer|design|ship|deliver|buy|import)\b", re.IGNORECASE)
NOT_PRODUCTS = frozenset({"ORG", "PERSON", "GPE", "LOC", "FAC", "NORP"})
# "how" followed by a verb asks for a manner or an account ("How did the merger change …"), and "what
# caused / led to" for a reason, as "why" does; "how many", "how old" ask for an amount (_labels_of).
# An instruction to write, describe or explain ("Imagine you are Felicia. Write a diary entry …")
# asks for an account too.
_EXPLAIN = re.compile(r"^(?:why\b|how\s+(?:did|does|do|is|was|were|are|has|have|had|can|could|would|will)\b|"
                      r"what\s+(?:happened|happens|happen|caused|causes|led\s+to|leads\s+to)\b|"
                      r"(?:describe|explain|summari[sz]e|write|rewrite|imagine|discuss|analy[sz]e|outline|compose|"
                      r"narrate|compare|reflect)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class Expected:
    kind: str  # YESNO, CHOICE, ANY, or "ENTITY" (then `labels` says which)
    labels: frozenset[str] = frozenset()
    options: tuple[str, ...] = ()
    words: tuple[str, ...] = field(default=())  # the question's lower-cased words
    head: str = ""  # the noun after "what"/"which" ("river") or "how many": an answer often says it ("Ohio River")
    outside: tuple[str, ...] = ()  # a choice's words outside its options: "Death For Sale" asks no death
    excluded: frozenset[str] = frozenset()  # labels an ANY answer never carries ("what does X make")


def expected_answer(question: str) -> Expected:
    """The kind of answer `question` asks for."""
    words = tuple(w.lower() for w in _WORD.findall(question))
    if not words:
        return Expected(ANY, words=words)
    choice = (_ASKED_OR.search(question) if words[0] in AUXILIARIES
              else _CHOICE.search(question) or _BETWEEN.search(question) or _AFTER_COMPARED.search(question)
              or _OUT_OF.search(question))
    if choice:
        rest = question[:choice.start("a")] + " " + question[choice.end("a"):choice.start("b")] + " " + question[
            choice.end("b"):]
        return Expected(CHOICE, options=(choice["a"].strip(), choice["b"].strip()), words=words,
                        outside=tuple(w.lower() for w in _WORD.findall(rest)))
    if words[0] in AUXILIARIES or _last_sentence_word(question) in AUXILIARIES:
        return Expected(YESNO, words=words)
    stripped = question.strip()
    if _EXPLAIN.match(stripped) or _WHO_IS_NAME.match(stripped):
        return Expected(EXPLAIN, words=words)
    if MAKES.match(stripped):
        return Expected(ANY, words=words, excluded=NOT_PRODUCTS)
    labels = _labels_of(words)
    head = _head_noun(words) or (_counted_noun(words) if labels == NUMBER else "")
    if not labels and head:
        labels = HEAD_NOUNS[head]
    return Expected("ENTITY", labels, words=words, head=head) if labels else Expected(ANY, words=words)


def _last_sentence_word(question: str) -> str:
    """"The director Armando Iannucci has an OBE. Does the director Puneet Sira also have one?" asks
    its last sentence: its first word says the kind."""
    last = _SENTENCE_BREAK.split(question.strip())[-1]
    first = _WORD.search(last)
    return first.group().lower() if first else ""


def _head_noun(words: tuple[str, ...]) -> str:
    """The kind noun of the first "what"/"which" that has one: a relative "which" ("a university which
    also has a campus in which California city") names none; "what is the name of the pop band"
    names it after "name of"."""
    for i, word in enumerate(words):
        if word in ("what", "which"):
            after = words[i + 1:i + 5]
            if "name" in after:
                after = words[i + after.index("name") + 2:i + after.index("name") + 6]
            noun = next((noun for noun in after if noun in HEAD_NOUNS), "")
            if noun:
                return noun
    return ""


def _counted_noun(words: tuple[str, ...]) -> str:
    """"how many pads": the evidence writes the number before the noun ("45 million pads a year")."""
    at = next((i for i, word in enumerate(words[:-2]) if word == "how" and words[i + 1] == "many"), None)
    return words[at + 2] if at is not None and words[at + 2] not in AUXILIARIES else ""


def _labels_of(words: tuple[str, ...]) -> frozenset[str]:
    first = words[0]
    if "how" in words[:3]:
        after = words[words.index("how") + 1] if words.index("how") + 1 < len(words) else ""
        if after in ("many", "much", "long", "old", "far", "tall", "big", "large"):
            return DATE if after == "long" and "ago" in words else NUMBER
    if first == "when" or "when" in words[:2]:
        return DATE
    if first in ("who", "whom", "whose") or words[:2] in (("by", "whom"), ("to", "whom")):
        # "Who is the managing director of …": a person's role names a person, not an organisation
        role = next((w for w in words[1:6] if w in HEAD_NOUNS), "")
        return PERSON if first == "whose" or HEAD_NOUNS.get(role) == PERSON else PERSON | frozenset({"ORG"})
    if first == "where" or words[:2] == ("from", "where"):
        return SCHOOL if SCHOOLING & set(words) else PLACE
    return frozenset()
