"""The grammar of one clause for the parse extractor (parse.py); its words are in lexicon.py.

`slots` turns passive clauses active before the lexicon's rules apply (the agent "by X" becomes the
subject), so "X is supplied by Y" meets the same rule as "Y supplies X"; conjuncts share their
subject and object. Also here: a name's tokens and type from its own words,
negation and "no longer", dates ("since March 2024" → 2024-03-01), text preparation, the type a
relation implies for an untyped end, and the optional embedding match of an unmapped verb phrase.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from hopgraph.kg.extractors import lexicon
from hopgraph.kg.facts import Vocabulary
from hopgraph.records.knowledge import RawRelation

SIMILARITY = 0.75  # cosine an unmapped verb phrase needs to a relation prototype (MiniLM)
_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july",
                                         "august", "september", "october", "november", "december"], 1)}
_DATE = re.compile(r"(?:(\d{1,2})\s+)?(?:([A-Za-z]+)\s+)?((?:19|20)\d\d)\b")
START, END = {"since", "from", "effective", "starting", "in"}, {"until", "till", "through"}
_HEADER = re.compile(r"^[A-Z][\w ]{0,20}:\s")
# A legal suffix's period that also ends its sentence ("… by Orrin Castings Ltd. Coil records …"):
# spaCy keeps "Ltd." whole and hangs it on the verb as the full stop, losing the name.
_SUFFIX_STOP = re.compile(r"\b(Ltd|Inc|Corp|Co|Pvt|Plc|LLC)\.(?=\s+(?!(?:Ltd|Limited|Inc|Corp|Co|Pvt|Plc|LLC)\b)[A-Z])")


def prepare(text: str) -> str:
    """Markdown headings out (title case parses badly); a header line ("From: …") or a paragraph's
    last line ends its sentence; hard-wrapped lines are joined; a legal suffix ending a sentence
    gives its period to the sentence."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        lines = [ln.strip() for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        lines = [ln + "." if _HEADER.match(ln) and ln[-1] not in ".!?" else ln for ln in lines]
        if lines:
            paragraph = _SUFFIX_STOP.sub(r"\1 .", " ".join(lines))
            paragraphs.append(paragraph if paragraph[-1] in ".!?\"”)" else paragraph + ".")
    return "\n\n".join(paragraphs)


def iso_date(text: str, end: bool = False) -> str | None:
    """"1 July 2024" → 2024-07-01; "March 2024" → 2024-03-01 (end: 2024-03-31); "2016" → 2016-01-01."""
    found = _DATE.search(text)
    if not found:
        return None
    day, month_name, year = found.groups()
    month = _MONTHS.get((month_name or "").lower())
    if month is None:
        return f"{year}-12-31" if end else f"{year}-01-01"
    if day is None:
        last = (np.datetime64(f"{year}-{month:02d}") + 1).astype("datetime64[D]") - 1
        return str(last) if end else f"{year}-{month:02d}-01"
    return f"{year}-{month:02d}-{int(day):02d}"


def slots(verb: Any) -> dict[str, list[Any]]:
    """Tokens filling the verb's logical subject, direct object and prepositional slots."""
    slots: dict[str, list[Any]] = {}
    add = lambda slot, token: slots.setdefault(slot, []).extend(conjuncts(token))  # noqa: E731
    for child in verb.children:
        if child.dep_ in ("nsubj", "csubj") or (child.dep_ == "compound" and child.i < verb.i):
            add("subj", child)  # a name tagged as the verb's compound is its subject ("X designs and …")
        elif child.dep_ in ("nsubjpass", "dobj", "attr", "oprd"):
            add("dobj", child)
        elif child.dep_ == "agent":
            for pobj in (c for c in child.children if c.dep_ == "pobj"):
                add("subj", pobj)
        elif child.dep_ in ("prep", "dative"):
            _prep_slots(child, add)
    verb_preps = set(slots)  # "buys its castings from F", "a stake in X in 2023": the object carries it
    for obj in list(slots.get("dobj", ())):
        for prep in (c for c in obj.children if c.dep_ == "prep" and c.lower_ != "of"):
            if prep.lower_ not in verb_preps or not any(t.ent_type_ == "DATE" for t in prep.subtree):
                _prep_slots(prep, add)
    relative = any(c.dep_ == "advmod" and c.lower_ in ("where", "when") for c in verb.children)
    if verb.dep_ == "relcl" and any(c.dep_ == "advmod" and c.lower_ == "where" for c in verb.children):
        add("in", verb.head)  # "Hosur, where it has operated since 2023": "where" is "in Hosur"
    for taker in [t for obj in slots.get("dobj", ()) for t in _consumers(obj)]:
        add("consumer", taker)
    if verb.dep_ == "relcl" and not relative and not ({"subj", "dobj"} <= set(slots)):
        add("dobj" if "subj" in slots else "subj", verb.head)  # "the other model it builds"
    if "subj" not in slots and verb.dep_ in ("xcomp", "conj", "advcl", "acl") and verb.head is not verb:
        owner = verb.head.head if verb.dep_ == "acl" else verb.head  # "renewed its contract to supply"
        for child in owner.children:
            if child.dep_ == "nsubj":
                add("subj", child)
            elif child.dep_ == "agent":
                for pobj in (c for c in child.children if c.dep_ == "pobj"):
                    add("subj", pobj)
    if "dobj" not in slots:  # "cast, machine and deliver housings": the last conjunct's object
        for conj in (c for c in verb.children if c.dep_ == "conj" and c.pos_ == "VERB"):
            for child in (c for c in conj.children if c.dep_ == "dobj"):
                add("dobj", child)
    return slots


def _prep_slots(prep: Any, add: Callable[[str, Any], None]) -> None:
    for child in prep.children:
        if child.dep_ == "pobj":
            add("to" if prep.dep_ == "dative" else prep.lower_, child)
        elif child.dep_ == "prep":  # "because of", "from 2016 until 2022"
            _prep_slots(child, add)


def _consumers(goods: Any) -> list[Any]:
    """"supplies the strip from which Y stamps plates", "sells the resin that Y moulds": the subject
    of a relative clause on the goods (not the relative pronoun itself) is who takes them."""
    found = []
    for clause in (c for c in goods.children if c.dep_ == "relcl"):
        subjects = [c for c in clause.children if c.dep_ in ("nsubj", "compound") and c.i < clause.i]
        found += [s for s in subjects if s.tag_ not in ("WDT", "WP") and s.lower_ not in ("which", "that", "who")]
    return found


def conjuncts(token: Any) -> list[Any]:
    """The token and what it is coordinated with: "from Foundry F and Foundry H"."""
    return [token] + [t for c in token.children if c.dep_ == "conj" for t in conjuncts(c)]


def negated(verb: Any) -> bool:
    """"does not supply", "no longer supplies", "never owned", "shares no owners", "plans to buy",
    "would open"."""
    for child in verb.children:
        if child.dep_ == "neg" or child.lower_ in ("never", "longer") or (
                child.dep_ in ("dobj", "nsubj", "attr") and any(d.lower_ in ("no", "neither") for d in child.children)):
            return True
        if child.dep_ == "acomp" and child.lower_ in lexicon.NEGATORS:
            return True
    if any(c.dep_ == "aux" and c.lower_ in lexicon.MODALS for c in verb.children):
        return True  # "said the company would open an office in X": a plan or a condition, no fact
    head = verb.head
    return verb.dep_ in ("xcomp", "ccomp", "conj") and head is not verb and (
        negated(head) or (head.lemma_ in lexicon.HEDGES and verb.dep_ == "xcomp"))


def no_longer(verb: Any) -> bool:
    return any(c.lower_ == "longer" and any(g.lower_ == "no" for g in c.children) for c in verb.children)


def past_perfect(verb: Any) -> bool:
    return verb.tag_ == "VBN" and any(c.dep_ == "aux" and c.lower_ == "had" for c in verb.children)


def reference_date(verb: Any) -> str | None:
    """The last date the text gave before this sentence: the time a past perfect or "no longer" is
    measured from ("… closed on 1 July 2024. X had owned it since 2009")."""
    dates = [e for e in verb.doc.ents if e.label_ == "DATE" and e.end <= verb.sent.start]
    found = [day for e in dates if (day := iso_date(e.text, end=False)) and re.search(r"\d{4}", e.text)]
    return found[-1] if found else None


def dates(slots: dict[str, list[Any]]) -> tuple[str | None, str | None]:
    """"since March 2024" → ("2024-03-01", None); "from 2016 until December 2022" → both ends."""
    date = until = None
    for slot, tokens in slots.items():
        for token in (t for t in tokens if t.ent_type_ == "DATE"):
            text = " ".join(t.text for t in token.subtree if t.ent_type_ == "DATE")
            if slot in START and date is None:
                date = iso_date(text, end=False)
            elif slot in END and until is None:
                until = iso_date(text, end=True)
    return date, until


def phrase(verb: Any, slots: dict[str, list[Any]]) -> str:
    """"buy casting from": the verb, a generic object's head and the first preposition."""
    words = [verb.lemma_.lower()] + [t.lemma_.lower() for t in slots.get("dobj", ())[:1] if t.pos_ == "NOUN"]
    return " ".join(words + [s for s in slots if s not in ("subj", "dobj", "consumer")][:1])


def comma_only(token: Any) -> bool:
    """"Nagpur, Maharashtra" parsed as a conjunct: a comma and no "and" between."""
    between = token.doc[token.head.i + 1 : token.i]
    kind = token.ent_type_ if token.ent_type_ == token.head.ent_type_ else ""
    listed = kind and any(c.dep_ == "cc" for c in token.children) and any(  # "India, Indonesia and Mexico"
        c.dep_ == "conj" and c.ent_type_ == kind for c in token.children)
    return any(t.text == "," for t in between) and not any(t.dep_ == "cc" for t in between) and not listed


def town_of(state: Any) -> Any:
    """The town a name after "in Town," or "X Ltd of Town," names the state of: "in Salem, Tamil Nadu"
    parsed as a conjunct of the town, or hung as an apposition on a noun before it ("the business,
    which remains in Salem, Tamil Nadu"). None when it is no such name."""
    if state.dep_ == "conj" and comma_only(state) and state.head.dep_ == "pobj":
        return state.head
    before = state.doc[state.left_edge.i - 2] if state.left_edge.i >= 2 else None
    if state.dep_ == "appos" and before is not None and state.doc[before.i + 1].text == "," and (
            before.dep_ == "pobj" and before.pos_ == "PROPN" and before.head.lower_ in ("in", "of", "at")):
        return before
    return None


def in_vocabulary(relation: RawRelation, vocabulary: Vocabulary) -> RawRelation:
    """A relation or type outside the vocabulary falls back to RELATED_TO / untyped."""
    kind = relation.relation if relation.relation in vocabulary.relation_types else "RELATED_TO"
    keep = lambda t: t if t in vocabulary.entity_types else ""  # noqa: E731
    return RawRelation(relation.source, kind, relation.target, relation.description,
                       keep(relation.source_type), keep(relation.target_type), relation.date, relation.until)


def typed(relations: Sequence[RawRelation] | Any) -> list[RawRelation]:
    """An untyped end takes the type its relation implies (a supplier is a company), then the
    chunk's majority for that name, so one name has one type in a chunk."""
    relations = list(relations)
    votes: dict[str, Counter[str]] = {}
    for r in relations:
        implied = _IMPLIED.get(r.relation, ("", ""))
        for name, kind, default in ((r.source, r.source_type, implied[0]), (r.target, r.target_type, implied[1])):
            votes.setdefault(name, Counter())[kind or default] += 1 if kind else 0.5  # type: ignore[assignment]
    best = {n: max(c, key=lambda k: (bool(k), c[k])) for n, c in votes.items()}
    return [RawRelation(r.source, r.relation, r.target, r.description, best[r.source], best[r.target], r.date,
                        r.until) for r in relations]


_IMPLIED = {"SUPPLIES": ("ORG", "ORG"), "OWNS": ("ORG", "ORG"), "PART_OF": ("PERSON", "ORG"),
            "LOCATED_IN": ("", "LOCATION"), "CAUSED_BY": ("EVENT", "EVENT"), "REPORTS_TO": ("PERSON", "PERSON"),
            "USES": ("", "COMPONENT")}


class PhraseMapper:
    """An unmapped verb phrase → the relation whose prototype phrase is closest by embedding."""

    def __init__(self, embedder: Any, threshold: float = SIMILARITY) -> None:
        self.embedder, self.threshold = embedder, threshold
        self.prototypes = embedder.embed([p for p, _, _ in lexicon.PROTOTYPES])
        self.cache: dict[str, tuple[str, bool]] = {}

    def map(self, phrase: str) -> tuple[str, bool]:
        if phrase not in self.cache:
            scores = self.prototypes @ self.embedder.embed([phrase])[0]
            best = int(np.argmax(scores))
            _, relation, forward = lexicon.PROTOTYPES[best]
            self.cache[phrase] = (relation, forward) if scores[best] >= self.threshold else ("RELATED_TO", True)
        return self.cache[phrase]


LEFT_DEPS = {"compound", "nmod", "nummod", "amod", "punct"}
LABELS = {"PERSON": "PERSON", "ORG": "ORG", "GPE": "LOCATION", "LOC": "LOCATION", "PRODUCT": "PRODUCT",
           "EVENT": "EVENT", "LAW": "CONCEPT", "FAC": "ORG"}
CODE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[\w-]+$|^[A-Z]{2,}\d*$")


def span(token: Any) -> list[Any]:
    """The head, the left modifiers of its name ("the Surat foundry fire") and a code after it ("Titan 7")."""
    # a participle is no part of a name: "the Pune-based Aurex Motors", "the newly listed X"
    tokens = [t for c in token.lefts if c.dep_ in LEFT_DEPS and not (c.dep_ == "amod" and c.pos_ == "VERB")
              for t in c.subtree if t.i < token.i]
    tokens.append(token)
    for right in token.rights:  # "Titan 7", "part QX-12", "QX-12 caliper"
        if right.i == tokens[-1].i + 1 and right.dep_ in ("nummod", "amod", "compound", "appos") and (
                right.like_num or CODE.match(right.text) or right.lower_ in lexicon.COMPONENT_NOUNS):
            tokens.append(right)
    ordered = sorted({t.i: t for t in tokens if not t.is_space and t.text not in "\"“”()"}.values(),
                     key=lambda t: t.i)
    while ordered[0] is not token and (ordered[0].dep_ in ("det", "poss", "case") or (ordered[0].like_num
                                       and not CODE.match(ordered[0].text))):
        ordered = ordered[1:]
    return ordered


def is_proper(token: Any) -> bool:
    if token.lower_ in lexicon.ROLE_WORDS or lexicon.describes(token.lower_):
        return False  # "Chief Executive Officer", "SUV" are capitalised, yet no names
    if token.pos_ == "NOUN" and token.dep_ == "compound" and token.head.pos_ == "VERB" and token.text[:1].isupper():
        return True  # "from which Halvor stamps plates": a verb's subject misread as the verb's compound noun
    return (token.pos_ == "PROPN" and token.text[:1].isupper()) or bool(CODE.match(token.text))


def type_of(words: list[Any], head: Any) -> str:
    """Legal suffix or trade word → ORG; the last common noun → EVENT/PRODUCT/COMPONENT; else spaCy's label."""
    if any(w.lower_.strip(".") in lexicon.ORG_WORDS and w.text[:1].isupper() for w in words[1:]):
        return "ORG"
    last = words[-1]
    if last.text.islower() or last.pos_ == "NOUN":
        for nouns, kind in ((lexicon.EVENT_NOUNS, "EVENT"), (lexicon.VEHICLE_NOUNS, "PRODUCT"),
                            (lexicon.COMPONENT_NOUNS, "COMPONENT"), (lexicon.CONCEPT_HINTS, "CONCEPT")):
            if last.lower_ in nouns:
                return kind
    if any(w.lower_ in lexicon.CONCEPT_HINTS for w in words):
        return "CONCEPT"
    label = LABELS.get(head.ent_type_, "")
    if words[0].ent_iob_ == "I" and words[0].ent_type_ == head.ent_type_:
        label = ""  # the entity began before the name: "[Tamsin Ltd of Surat]" labels Surat ORG
    if label in ("ORG", "PERSON", "LOCATION") and all(CODE.match(w.text) for w in words):
        return ""  # a part number is no company, person or place, whatever spaCy says
    if label == "PERSON" and (len(words) < 2 or not all(w.text[:1].isalpha() for w in words)):
        return ""  # spaCy calls many one-word companies (and "Titan 7") people
    if label == "PERSON" and plural_noun(words[-1].lower_):
        return ""  # "Ferrox Alloys": a person's name seldom ends in a plural common noun; left to the relations
    return label


def plural_noun(word: str) -> bool:
    """"alloys", "castings", "batteries": the plural of a common noun in spaCy's English tables."""
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return False
    singulars = {word[:-1], word[:-2] if word.endswith("es") else "", word[:-3] + "y" if word.endswith("ies") else ""}
    return bool(singulars & _nouns())


@cache
def _nouns() -> frozenset[str]:
    from hopgraph.text.nlp import load_model

    return frozenset(load_model().get_pipe("lemmatizer").lookups.get_table("lemma_index")["noun"])
