"""What the parse extractor (parse.py) reads, apart from reference: the words (a general business-English
verb lexicon, role, facility, place, event and part nouns), and the grammar of one clause.

Nothing here names an entity of any corpus. A rule reads "verb + slot → relation between two
slots", where a slot is the logical subject ("subj"), the direct object ("dobj") or the object of a
preposition ("from", "to", "in"…). `slots` turns passive clauses active before the rules apply (the
agent "by X" becomes the subject), so "X is supplied by Y" meets the same rule as "Y supplies X";
conjuncts share their subject and object. Also here: a name's tokens and type from its own words,
negation and "no longer", dates ("since March 2024" → 2024-03-01), text preparation, the type a
relation implies for an untyped end, and the optional embedding match of an unmapped verb phrase.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from hopgraph.kg.facts import Vocabulary
from hopgraph.records.knowledge import RawRelation


class Rule(NamedTuple):
    source: str  # slot whose filler is the relation's source
    target: str  # slot whose filler is its target
    relation: str
    target_types: frozenset[str] = frozenset()  # when set, the target must have one of these types
    unless_object: frozenset[str] = frozenset()  # the rule is off when the direct object has such a type


_ANY: frozenset[str] = frozenset()
_ORG = frozenset({"ORG"})
_GOODS = frozenset({"PRODUCT", "COMPONENT"})
_CUSTOMER = frozenset({"ORG", "PRODUCT", "COMPONENT"})
_PLACE = frozenset({"LOCATION"})
_CAUSE = frozenset({"EVENT", "CONCEPT"})


def _rules(verbs: str, *rules: Rule) -> dict[str, tuple[Rule, ...]]:
    return {verb: rules for verb in verbs.split()}


# A supplier: the subject supplies the direct object (a customer or named goods), the "to" object, and
# named goods it supplies "with". A seller sells goods "to" a customer; a company sold "to" a buyer
# is owned by that buyer.
_SUPPLY = (Rule("subj", "dobj", "SUPPLIES", _CUSTOMER), Rule("subj", "to", "SUPPLIES", _CUSTOMER),
           Rule("subj", "with", "SUPPLIES", _GOODS))
_SELL = (Rule("subj", "dobj", "SUPPLIES", _GOODS), Rule("subj", "to", "SUPPLIES", _CUSTOMER, _ORG),
         Rule("to", "dobj", "OWNS", _ORG))
# A buyer: whoever it buys "from" supplies it; buying a company is owning it.
_BUY = (Rule("from", "subj", "SUPPLIES"), Rule("subj", "dobj", "OWNS", _ORG))
# A maker of a named product or component supplies it ("made by" in the supplier convention).
_MAKE = (Rule("subj", "dobj", "SUPPLIES", _GOODS), Rule("subj", "to", "SUPPLIES", _ORG))
_OWN = (Rule("subj", "dobj", "OWNS", _ORG), Rule("subj", "in", "OWNS", _ORG))  # "holds a stake in X"
_USE = (Rule("subj", "dobj", "USES", _GOODS),)
_PLACED = (Rule("dobj", "in", "LOCATED_IN", _PLACE), Rule("dobj", "at", "LOCATED_IN", _PLACE),
           Rule("subj", "in", "LOCATED_IN", _PLACE))
_LEAD = (Rule("subj", "dobj", "PART_OF", _ORG),)
_CAUSED = (Rule("dobj", "subj", "CAUSED_BY", _CAUSE),)

VERB_RULES: dict[str, tuple[Rule, ...]] = {
    **_rules("supply provide furnish serve", *_SUPPLY),
    **_rules("sell deliver ship distribute export vend", *_SELL),
    **_rules("buy purchase source procure order import obtain receive get take", *_BUY),
    **_rules("come arrive", Rule("from", "subj", "SUPPLIES")),  # "our brackets come from X"
    **_rules("make manufacture produce build assemble fabricate forge cast mould mold machine design "
             "develop brew", *_MAKE),
    **_rules("own acquire control hold", *_OWN),
    **_rules("use employ utilise utilize adopt incorporate feature", *_USE),
    **_rules("fit equip", Rule("to", "dobj", "USES", _ANY), Rule("subj", "with", "USES", _GOODS),
             Rule("subj", "dobj", "USES", _GOODS)),
    **_rules("rely depend", Rule("subj", "on", "USES", _GOODS), Rule("on", "subj", "SUPPLIES", _ORG)),
    **_rules("locate base headquarter situate site house", *_PLACED),
    **_rules("remain sit stand lie operate move relocate shift open", Rule("subj", "in", "LOCATED_IN", _PLACE),
             Rule("subj", "to", "LOCATED_IN", _PLACE)),
    **_rules("be", Rule("subj", "in", "LOCATED_IN", _PLACE), Rule("subj", "at", "LOCATED_IN", _PLACE)),
    **_rules("report answer", Rule("subj", "to", "REPORTS_TO", frozenset({"PERSON"}))),
    **_rules("work serve", Rule("subj", "for", "PART_OF", _ORG), Rule("subj", "at", "PART_OF", _ORG),
             Rule("subj", "with", "PART_OF", _ORG)),
    **_rules("join lead head run manage chair direct found co-found", *_LEAD),
    **_rules("cause trigger create spark", *_CAUSED),
    **_rules("lead contribute", Rule("to", "subj", "CAUSED_BY", _CAUSE)),
    **_rules("result stem follow arise", Rule("subj", "from", "CAUSED_BY", _CAUSE),
             Rule("in", "subj", "CAUSED_BY", _CAUSE)),
}
# "X is owned by Y" is read from the agent; "X is located in Y" has no agent: its subject is the
# logical direct object, so these verbs' passive subject stays the object (see parse.py).

# The types a relation's source may have (an untyped source passes where a company may stand).
SOURCE_TYPES = {"SUPPLIES": {"ORG"}, "OWNS": {"ORG", "PERSON"}, "USES": {"ORG", "PRODUCT", "COMPONENT"},
                "LOCATED_IN": {"ORG", "LOCATION", "EVENT"}, "CAUSED_BY": {"EVENT", "CONCEPT"},
                "PART_OF": {"PERSON"}, "REPORTS_TO": {"PERSON"}, "RELATED_TO": {"ORG", "PRODUCT", "COMPONENT",
                                                                                "EVENT", "CONCEPT", "LOCATION"}}

# Nouns that carry a relation: "X, a subsidiary of Y", "Its largest customer is Y", "its works in Z".
# (holder → relation, read as: possessor/"of"-object REL the noun's referent, or the reverse)
CUSTOMER_NOUNS = frozenset({"customer", "client", "buyer", "purchaser", "account"})
SUPPLIER_NOUNS = frozenset({"supplier", "vendor", "source", "seller", "maker", "manufacturer", "producer"})
SUBSIDIARY_NOUNS = frozenset({"subsidiary", "unit", "division", "arm", "affiliate"})
OWNER_NOUNS = frozenset({"owner", "parent", "shareholder", "investor"})
FACILITY_NOUNS = frozenset({"plant", "factory", "works", "site", "headquarters", "office", "offices",
                            "facility", "mill", "foundry", "campus", "base", "warehouse", "depot",
                            "unit", "shop", "hq", "operations", "business"})
ROLE_WORDS = frozenset({
    "director", "directors", "chairman", "chairwoman", "chair", "chairperson", "chief", "executive", "officer",
    "ceo", "cfo", "coo", "cto", "md", "president", "vice", "head", "manager", "engineer", "founder", "secretary",
    "spokesperson", "spokesman", "spokeswoman", "employee", "partner", "treasurer", "controller", "supervisor",
    "lead", "leader", "superintendent", "boss", "owner", "managing", "general", "plant", "quality", "purchasing",
    "procurement", "operations", "sales", "finance", "technical", "commercial", "senior", "deputy", "principal",
    "analyst", "auditor", "inspector", "representative", "agent", "counsel", "member"})
# A role noun is a person's job only when its last word is one of these (a "plant" is not a job).
ROLE_HEADS = frozenset({
    "director", "chairman", "chairwoman", "chair", "chairperson", "executive", "officer", "ceo", "cfo", "coo",
    "cto", "md", "president", "head", "manager", "engineer", "founder", "secretary", "spokesperson",
    "spokesman", "spokeswoman", "employee", "treasurer", "controller", "supervisor", "leader",
    "superintendent", "boss", "analyst", "auditor", "inspector", "representative", "counsel", "member"})

# Entity typing of a name by its last common noun ("the Surat foundry fire", "the QX-12 caliper").
EVENT_NOUNS = frozenset({
    "flood", "floods", "flooding", "fire", "blaze", "explosion", "strike", "lockout", "shortage", "halt", "cut",
    "delay", "delays", "outage", "recall", "stoppage", "shutdown", "disruption", "accident", "collapse",
    "earthquake", "storm", "cyclone", "dispute", "bankruptcy", "insolvency", "merger", "acquisition", "sale",
    "launch", "closure", "protest", "breach", "leak", "spill", "crisis", "slump", "drop", "fall", "surge",
    "failure", "incident", "attack", "pandemic", "epidemic", "war", "quake", "landslide", "drought"})
VEHICLE_NOUNS = frozenset({
    "car", "cars", "suv", "suvs", "truck", "trucks", "hatchback", "sedan", "saloon", "coupe", "van", "bus",
    "buses", "tractor", "motorcycle", "scooter", "pickup", "vehicle", "vehicles", "model", "models", "lorry",
    "jeep", "crossover", "minivan", "phone", "laptop", "product", "products", "brand", "range", "platform"})
COMPONENT_NOUNS = frozenset({
    "part", "parts", "component", "components", "caliper", "calipers", "pad", "pads", "beam", "beams",
    "brake", "brakes", "housing", "housings", "bracket", "brackets", "seal", "bearing", "bearings",
    "gear", "gears", "gearbox", "engine", "engines", "axle", "axles", "shaft", "shafts", "valve", "valves",
    "pump", "pumps", "sensor", "sensors", "chip", "chips", "module", "modules", "battery", "batteries",
    "cell", "cells", "tyre", "tyres", "tire", "tires", "wheel", "wheels", "seat", "seats", "casting",
    "castings", "forging", "forgings", "drum", "drums", "disc", "discs", "rotor", "rotors", "spring",
    "springs", "knuckle", "knuckles", "piston", "pistons", "cylinder", "filter", "filters", "hose", "hoses",
    "harness", "lamp", "lamps", "mirror", "mirrors", "clutch", "clutches", "transmission", "motor", "motors",
    "inverter", "controller", "display", "board", "boards", "unit", "assembly", "kit", "lining", "linings"})
# Last words that make a capitalised name a company rather than a person or a place.
ORG_WORDS = frozenset({
    "ltd", "limited", "pvt", "private", "inc", "incorporated", "llc", "llp", "plc", "gmbh", "ag", "co", "corp",
    "corporation", "company", "group", "holdings", "holding", "industries", "industry", "systems", "motors",
    "trucks", "foundry", "foundries", "forgings", "forge", "castings", "steel", "steels", "metals",
    "mining", "plastics", "chemicals", "electronics", "electricals", "technologies",
    "technology", "tech", "automotive", "components", "engineering", "engineers", "manufacturing", "logistics",
    "enterprises", "works", "mills", "textiles", "pharma", "pharmaceuticals", "labs", "laboratories", "bank",
    "partners", "ventures", "capital", "associates", "solutions", "services", "international", "global",
    "brakes", "rubber", "tyres", "auto", "autos", "energy", "power", "paints",
    "glass", "cables", "wires", "fasteners", "bearings", "gears", "pumps", "products", "resources"})
CONCEPT_HINTS = frozenset({"certification", "certificate", "standard", "accreditation", "approval", "iso",
                           "licence", "license", "patent", "award", "regulation", "agreement"})

# Definite descriptions that stand for a company mentioned before ("the company", "the group").
ORG_DESCRIPTIONS = frozenset({"company", "firm", "group", "business", "supplier", "maker", "manufacturer",
                              "producer", "foundry", "plant", "site", "factory", "holding", "corporation",
                              "concern", "enterprise", "organisation", "organization", "seller", "buyer",
                              "purchaser", "vendor", "customer", "carmaker", "automaker", "works"})
PERSON_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers", "himself", "herself"})
THING_PRONOUNS = frozenset({"it", "its", "itself"})
# "we", "our", "us": the writer's own company (a memo, a statement in quotes).
FIRST_PERSON = frozenset({"we", "our", "us", "ours"})

# Words that deny the fact of their clause ("does not supply", "no longer", "is unrelated to").
NEGATORS = frozenset({"not", "n't", "never", "no", "neither", "nor", "without", "cease", "stop", "end",
                      "deny", "unrelated", "different", "separate", "distinct", "independent", "none"})
# Verbs that put their clause in doubt: plans, talks, denials, reports of what did not happen.
HEDGES = frozenset({"plan", "consider", "seek", "hope", "aim", "intend", "propose", "negotiate", "discuss",
                    "explore", "may", "might", "could", "would", "deny", "refuse", "decline", "fail", "expect",
                    "ask", "want", "try", "stop", "cease", "end"})

# Phrases the embedder compares an unmapped verb phrase with: (prototype, relation, subject is source).
PROTOTYPES: tuple[tuple[str, str, bool], ...] = (
    ("supplies", "SUPPLIES", True), ("sells to", "SUPPLIES", True), ("delivers parts to", "SUPPLIES", True),
    ("buys from", "SUPPLIES", False), ("sources from", "SUPPLIES", False),
    ("uses", "USES", True), ("is fitted with", "USES", True),
    ("is located in", "LOCATED_IN", True), ("is based in", "LOCATED_IN", True),
    ("owns", "OWNS", True), ("acquires", "OWNS", True), ("is owned by", "OWNS", False),
    ("works for", "PART_OF", True), ("is employed by", "PART_OF", True),
    ("reports to", "REPORTS_TO", True), ("is caused by", "CAUSED_BY", True), ("causes", "CAUSED_BY", False),
)

PLACE_NOUNS = frozenset({"town", "city", "state", "district", "village", "capital", "region", "country",
                         "province", "suburb", "port", "county", "hub", "metropolis", "area", "municipality"})


def describes(noun: str) -> str:
    """The entity type an apposition's head noun gives its holder ("X, a town in Y" → LOCATION)."""
    for nouns, kind in ((PLACE_NOUNS, "LOCATION"), (ORG_DESCRIPTIONS, "ORG"), (VEHICLE_NOUNS, "PRODUCT"),
                        (COMPONENT_NOUNS, "COMPONENT"), (EVENT_NOUNS, "EVENT")):
        if noun in nouns:
            return kind
    return ""


SIMILARITY = 0.75  # cosine an unmapped verb phrase needs to a relation prototype (MiniLM)
_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july",
                                         "august", "september", "october", "november", "december"], 1)}
_DATE = re.compile(r"(?:(\d{1,2})\s+)?(?:([A-Za-z]+)\s+)?((?:19|20)\d\d)\b")
START, END = {"since", "from", "effective", "starting", "in"}, {"until", "till", "through"}
_HEADER = re.compile(r"^[A-Z][\w ]{0,20}:\s")


def prepare(text: str) -> str:
    """Markdown headings out (title case parses badly); a header line ("From: …") or a paragraph's
    last line ends its sentence; hard-wrapped lines are joined."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        lines = [ln.strip() for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        lines = [ln + "." if _HEADER.match(ln) and ln[-1] not in ".!?" else ln for ln in lines]
        if lines:
            paragraph = " ".join(lines)
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
    for obj in list(slots.get("dobj", ())):  # "buys its castings from F": the object carries the source
        for prep in (c for c in obj.children if c.dep_ == "prep" and c.lower_ not in slots and c.lower_ != "of"):
            _prep_slots(prep, add)
    relative = any(c.dep_ == "advmod" and c.lower_ in ("where", "when") for c in verb.children)
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


def conjuncts(token: Any) -> list[Any]:
    """The token and what it is coordinated with: "from Foundry F and Foundry H"."""
    return [token] + [t for c in token.children if c.dep_ == "conj" for t in conjuncts(c)]


def negated(verb: Any) -> bool:
    """"does not supply", "no longer supplies", "never owned", "shares no owners", "plans to buy"."""
    for child in verb.children:
        if child.dep_ == "neg" or child.lower_ in ("never", "longer") or (
                child.dep_ in ("dobj", "nsubj", "attr") and any(d.lower_ in ("no", "neither") for d in child.children)):
            return True
        if child.dep_ == "acomp" and child.lower_ in NEGATORS:
            return True
    head = verb.head
    return verb.dep_ in ("xcomp", "ccomp", "conj") and head is not verb and (
        negated(head) or (head.lemma_ in HEDGES and verb.dep_ == "xcomp"))


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
    return " ".join(words + [s for s in slots if s not in ("subj", "dobj")][:1])


def comma_only(token: Any) -> bool:
    """"Nagpur, Maharashtra" parsed as a conjunct: a comma and no "and" between."""
    between = token.doc[token.head.i + 1 : token.i]
    return any(t.text == "," for t in between) and not any(t.dep_ == "cc" for t in between)


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
        self.prototypes = embedder.embed([p for p, _, _ in PROTOTYPES])
        self.cache: dict[str, tuple[str, bool]] = {}

    def map(self, phrase: str) -> tuple[str, bool]:
        if phrase not in self.cache:
            scores = self.prototypes @ self.embedder.embed([phrase])[0]
            best = int(np.argmax(scores))
            _, relation, forward = PROTOTYPES[best]
            self.cache[phrase] = (relation, forward) if scores[best] >= self.threshold else ("RELATED_TO", True)
        return self.cache[phrase]


LEFT_DEPS = {"compound", "nmod", "nummod", "amod", "punct"}
LABELS = {"PERSON": "PERSON", "ORG": "ORG", "GPE": "LOCATION", "LOC": "LOCATION", "PRODUCT": "PRODUCT",
           "EVENT": "EVENT", "LAW": "CONCEPT", "FAC": "ORG"}
CODE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[\w-]+$|^[A-Z]{2,}\d*$")


def span(token: Any) -> list[Any]:
    """The head, the left modifiers of its name ("the Surat foundry fire") and a code after it ("Titan 7")."""
    tokens = [t for c in token.lefts if c.dep_ in LEFT_DEPS for t in c.subtree if t.i < token.i]
    tokens.append(token)
    for right in token.rights:  # "Titan 7", "part QX-12", "QX-12 caliper"
        if right.i == tokens[-1].i + 1 and right.dep_ in ("nummod", "amod", "compound", "appos") and (
                right.like_num or CODE.match(right.text) or right.lower_ in COMPONENT_NOUNS):
            tokens.append(right)
    ordered = sorted({t.i: t for t in tokens if not t.is_space and t.text not in "\"“”()"}.values(),
                     key=lambda t: t.i)
    while ordered[0] is not token and (ordered[0].dep_ in ("det", "poss", "case") or (ordered[0].like_num
                                       and not CODE.match(ordered[0].text))):
        ordered = ordered[1:]
    return ordered


def is_proper(token: Any) -> bool:
    if token.lower_ in ROLE_WORDS or describes(token.lower_):
        return False  # "Chief Executive Officer", "SUV" are capitalised, yet no names
    return (token.pos_ == "PROPN" and token.text[:1].isupper()) or bool(CODE.match(token.text))


def type_of(words: list[Any], head: Any) -> str:
    """Legal suffix or trade word → ORG; the last common noun → EVENT/PRODUCT/COMPONENT; else spaCy's label."""
    if any(w.lower_.strip(".") in ORG_WORDS and w.text[:1].isupper() for w in words[1:]):
        return "ORG"
    last = words[-1]
    if last.text.islower() or last.pos_ == "NOUN":
        for nouns, kind in ((EVENT_NOUNS, "EVENT"), (VEHICLE_NOUNS, "PRODUCT"),
                            (COMPONENT_NOUNS, "COMPONENT"), (CONCEPT_HINTS, "CONCEPT")):
            if last.lower_ in nouns:
                return kind
    if any(w.lower_ in CONCEPT_HINTS for w in words):
        return "CONCEPT"
    label = LABELS.get(head.ent_type_, "")
    if words[0].ent_iob_ == "I" and words[0].ent_type_ == head.ent_type_:
        label = ""  # the entity began before the name: "[Tamsin Ltd of Surat]" labels Surat ORG
    if label in ("ORG", "PERSON", "LOCATION") and all(CODE.match(w.text) for w in words):
        return ""  # a part number is no company, person or place, whatever spaCy says
    if label == "PERSON" and (len(words) < 2 or not all(w.text[:1].isalpha() for w in words)):
        return ""  # spaCy calls many one-word companies (and "Titan 7") people
    return label
