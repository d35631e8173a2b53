"""One chunk as the parse extractor reads it: the names it mentions (mentions, their types voted over
the chunk), what its pronouns and descriptions refer to, and the facts found so far.

Reference, inside one chunk: "it" takes the nearest preceding subject that does not contain it,
"he"/"she" the nearest person, "we"/"our" the nearest company (outside quotations), "the foundry"
the last name ending so, "the company" the last company subject, a defined term (`X (the
"Supplier")`) its holder, a generic phrase with a named owner ("Velora's castings") the owner.
coreferee was measured against this rule and cannot run here: its English model is not on PyPI.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hopgraph.kg.extractors import grammar as lex
from hopgraph.kg.extractors import lexicon
from hopgraph.records.knowledge import RawEntity, RawRelation

ARGUMENTS = {"nsubj", "nsubjpass", "dobj", "pobj", "attr", "appos", "dative"}
_NOT_NAMES = {"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL"}
_ALIAS = re.compile(r"^(?:formerly|previously|also|now|better)?\s*(?:known|registered|trading|called|renamed)$")


@dataclass(frozen=True)
class Mention:
    name: str
    type: str
    head: int  # index of its head token


@dataclass
class ChunkReading:
    """What one parsed chunk knows while it is read: names, references, and the facts found."""
    doc: Any
    types: dict[str, str] = field(default_factory=dict)  # a name's type, voted over the chunk
    terms: dict[str, Mention] = field(default_factory=dict)  # defined terms: "supplier" → its holder
    subjects: list[Mention] = field(default_factory=list)  # named subjects, in text order
    antecedent: str = "subject"  # the pronoun rule: nearest "subject", or nearest "mention"
    # The chunk's own tokens, [start, end): around them is its document's text, read for reference and
    # types only (a paragraph's "it" is often named in the paragraph before). -1: to the end.
    start: int = 0
    end: int = -1
    # every name of the parsed text with its head, once types and terms are known (None: not yet):
    # "the nearest name before" is asked for each pronoun, and the text around a chunk is long
    named: list[Mention] | None = None
    # per token, whether it stands inside a quotation (None: not counted yet); asked per pronoun
    quoted: list[bool] | None = None

    def owns(self, token: Any) -> bool:
        """The token is the chunk's own, not its context: only those state facts."""
        return self.start <= token.i and (self.end < 0 or token.i < self.end)
    relations: dict[tuple[str, str, str], RawRelation] = field(default_factory=dict)
    ended: dict[tuple[str, str, str], str | None] = field(default_factory=dict)  # "no longer": until when
    entities: dict[str, RawEntity] = field(default_factory=dict)


# --- names ------------------------------------------------------------------------------------------

def mention(chunk: ChunkReading, token: Any) -> Mention | None:
    """The name a head noun stands for, when it is a name: a proper noun or a code, with its compounds."""
    nominal = token.pos_ in ("PROPN", "NOUN", "NUM", "X", "ADJ") or token.dep_ in ARGUMENTS  # "caliper/ADV"
    if not nominal or token.pos_ in ("PRON", "DET", "PUNCT") or token.lower_ in chunk.terms:
        return None
    descriptions = lexicon.ORG_DESCRIPTIONS | lexicon.FACILITY_NOUNS | lexicon.ROLE_HEADS
    if token.text.islower() and token.lemma_.lower() in descriptions:
        return None  # "a Nagpur company", "the Nashik plant" describe; they do not name
    if token.text.islower() and token.lower_ in lexicon.EVENT_NOUNS and (named := _of_named(chunk, token)):
        return Mention(f"{token.text} of {named}", "EVENT", token.i)  # "a shortage of QX-12 calipers"
    words = lex.span(token)
    first = next((i for i, w in enumerate(words) if lex.is_proper(w)), None)
    if first is None:
        return None
    words = words[first:]  # "subsidiary OC Metals", "30,000 QX-12 units", "Plant head Dev Rao"
    if all(w.ent_type_ in _NOT_NAMES for w in words):
        return None  # "February 2025", "Q3": a time or amount, however capitalised
    kind = ""
    if len(words) > 1 and words[-1].lower_ in lexicon.VEHICLE_NOUNS and words[-1].text.islower():
        words, kind = words[:-1], "PRODUCT"  # "every Titan 7 truck" names the "Titan 7"
    name = re.sub(r"\s*-\s*", "-", " ".join(w.text for w in words)).strip(" ,")
    if words[-1].i == words[-1].sent.end - 1 and name.endswith("."):
        name = name[:-1]  # "… supplies Velora Ltd." ends the sentence with the abbreviation's period
    return Mention(name, chunk.types.get(name) or kind or lex.type_of(words, token), token.i)


def _of_named(chunk: ChunkReading, token: Any) -> str:
    for prep in (c for c in token.children if c.dep_ == "prep" and c.lower_ == "of"):
        for pobj in (c for c in prep.children if c.dep_ == "pobj"):
            if mention(chunk, pobj) is not None:
                return " ".join(t.text for t in pobj.subtree if t.dep_ != "det")
    return ""


def types_hint(token: Any) -> str:
    """The type a name's own words give it, before any vote."""
    return lex.type_of(lex.span(token), token) if token.pos_ == "PROPN" else ""


def vote_types(chunk: ChunkReading) -> dict[str, str]:
    """One type per name in a chunk: what the text calls it ("X, a town"), else its mentions' majority;
    a one-word name takes the type of the one longer name it starts ("Marlo" of "Marlo Motors")."""
    votes: dict[str, Counter[str]] = {}
    found = {t.i: m for t in chunk.doc if t.dep_ != "compound" and (m := mention(chunk, t)) is not None}
    for i, named in found.items():
        token, counter = chunk.doc[i], votes.setdefault(named.name, Counter())
        counter[named.type] += 1 if lex.type_of(lex.span(token), token) == named.type else 10  # "the Rivo SUV"
        # "X Ltd of Pune, Maharashtra (the Buyer)": the state of a town; the term is the company's
        town = lex.town_of(token)
        described = [token.head] if token.dep_ == "appos" and town is None else []
        if token.dep_ == "nsubj" and token.head.lemma_ == "be":  # "The Titan 7 is a … truck"
            described += [c for c in token.head.children if c.dep_ == "attr"]
        for noun in [c for c in token.children if c.dep_ == "appos" and town is None] + described:
            if (kind := lexicon.describes(noun.lemma_.lower())) and noun.i not in found:
                counter[kind] += 10  # an apposition says what it is: "X, a town in Y"
        if _signed(token):
            counter["ORG"] += 10  # "Dev Rao, Plant Head, Orrin Castings": the firm after a person's title
        if town is not None:
            counter["LOCATION"] += 2  # a town's state, whatever spaCy's label ("Tamil Nadu" PERSON)
            token = town  # and counts as the town does
        of_company = token.head.lower_ == "of" and types_hint(chunk.doc[token.head.head.i]) == "ORG"
        if token.dep_ == "pobj" and (token.head.lower_ in ("in", "near") or of_company):
            counter["LOCATION"] += 1  # "in X", "X Ltd of Y"
            if _place_after_preposition(token):
                counter["LOCATION"] += 1  # "makes seals in Coimbatore": outweighs spaCy's ORG guess
        elif token.dep_ == "pobj" and lexicon.describes(token.head.head.lemma_.lower()) == "LOCATION":
            counter["LOCATION"] += 10  # "the state of X"
    for token in chunk.doc:  # "the Pune-based maker": the place of "based"
        if token.dep_ in ("npadvmod", "compound") and token.head.lemma_ in _BASED and (named := mention(chunk, token)):
            votes.setdefault(named.name, Counter())["LOCATION"] += 10
    for token in chunk.doc:  # "its Nashik factory", "whose Nashik press shop": a site's modifier is a place
        if token.dep_ == "compound" and not token.ent_type_ and token.pos_ == "PROPN" and (
                token.head.lemma_.lower() in lexicon.FACILITY_NOUNS) and (named := mention(chunk, token)):
            votes.setdefault(named.name, Counter())["LOCATION"] += 1
    types = {n: max(c, key=lambda k: (bool(k), c[k])) for n, c in votes.items()}
    for i, named in found.items():  # "Nagpur, Maharashtra": a place's apposition is a place
        head = found.get(chunk.doc[i].head.i)
        if chunk.doc[i].dep_ in ("appos", "conj") and head is not None and types.get(head.name) == "LOCATION" \
                and lex.comma_only(chunk.doc[i]) and named.type in ("", "PERSON", "ORG") and votes[named.name][""] == 0:
            types[named.name] = "LOCATION"
    for name, kind in list(types.items()):
        longer = {types[n] for n in types if n.startswith(name + " ") and types[n]}
        if " " not in name and len(longer) == 1 and not kind and longer <= {"ORG", "PRODUCT", "COMPONENT"}:
            types[name] = longer.pop()
    return types


def _signed(token: Any) -> bool:
    """A name after a title that follows a person's name: "Dev Rao, Plant Head, Orrin Castings"."""
    title = token.head
    return token.dep_ in ("appos", "conj") and title.lower_ in lexicon.ROLE_HEADS and title.dep_ in (
        "appos", "conj") and title.head.ent_type_ == "PERSON" and title.i < token.i


_BASED = {"base", "locate", "headquarter", "situate"}
# Nouns whose "in X" is a company, not a place: "a stake in X", "invested in X".
_HOLDING_WORDS = {"stake", "share", "interest", "investment", "invest", "holding", "equity"}


def _place_after_preposition(token: Any) -> bool:
    """A one-word name after "in"/"at"/"near", with no company word of its own and not after a holding
    ("a stake in X"): a place, whatever spaCy's label."""
    prep = token.head
    words = lex.span(token)
    return (prep.lower_ in ("in", "at", "near") and len(words) == 1 and prep.head.lemma_.lower() not in _HOLDING_WORDS
            and words[0].lower_.strip(".") not in lexicon.ORG_WORDS and not lex.CODE.match(words[0].text))


# --- reference --------------------------------------------------------------------------------------

def refer(chunk: ChunkReading, token: Any) -> Mention | None:
    """The named thing a noun phrase stands for: itself, its antecedent, or its named owner."""
    if token.lower_ in chunk.terms and token.pos_ in ("NOUN", "PROPN"):
        return chunk.terms[token.lower_]
    if token.tag_ in ("PRP", "PRP$", "WP$") or token.lower_ in ("it", "its"):
        return _pronoun(chunk, token)
    if token.tag_ in ("WDT", "WP") and token.head.dep_ == "relcl":
        return refer(chunk, token.head.head)  # "which", "that", "who" in a relative clause
    definite = any(c.lower_ in ("the", "that", "this") for c in token.children if c.dep_ == "det")
    plain = definite and all(w.i == token.i or (w.pos_ == "ADJ" and w.text.islower()) for w in lex.span(token))
    if plain and (found := _description(chunk, token)) is not None:
        return found  # "the foundry", "the Group", "the whole operation"
    found = mention(chunk, token)
    if found is not None or token.pos_ not in ("NOUN", "PROPN"):
        return found
    for child in token.children:
        if child.dep_ == "appos" and lex.town_of(child) is None and (found := mention(chunk, child)) is not None and (
                found.type != "LOCATION" or lexicon.describes(token.lemma_.lower()) == "LOCATION"):
            return found  # "the managing director, Mira Kapoor"
    if token.lower_ in lexicon.ROLE_HEADS:
        return None  # "the managing director of X" is a person, not X
    if token.dep_ == "appos":
        return refer(chunk, token.head)  # "the Rivo, the other model it builds"
    twin = [c for c in token.head.children if c.dep_ == token.dep_ == "nsubj" and c.i < token.i]
    if twin:
        return refer(chunk, twin[0])  # the same apposition, parsed as a second subject
    for child in token.children:
        if child.dep_ == "poss":
            return refer(chunk, child)  # "Velora's drum castings", "its front brakes"
    of = [c for p in token.children if p.dep_ == "prep" and p.lower_ == "of" for c in p.children if c.dep_ == "pobj"]
    return refer(chunk, of[0]) if of else None  # "100 per cent of X", "the state of X"


def _pronoun(chunk: ChunkReading, token: Any) -> Mention | None:
    """The nearest-preceding-subject rule, by the pronoun's kind; a phrase never refers to itself."""
    word = token.lower_
    if word == "whose":
        clause = next((a for a in token.ancestors if a.dep_ == "relcl"), None)
        return refer(chunk, clause.head) if clause is not None else None
    outer = {a.i for a in token.ancestors}  # "the Rivo, the other model it builds": not the Rivo
    outer |= {c.i for a in token.ancestors if a.dep_ == "nsubj" for c in a.head.children if c.dep_ == "nsubj"}
    verb = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")), None)
    predicate = any(a.dep_ == "attr" for a in token.ancestors if a.i > (verb.i if verb is not None else -1))
    if verb is not None and (token.dep_ not in ("nsubj", "nsubjpass", "poss") or predicate):
        # "X holds shares in it", "X is its largest customer": not X
        outer |= {c.i for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")}
    earlier = [m for m in _mentions_before(chunk, token) if m.head not in outer]
    if chunk.antecedent == "subject":
        before = [m for m in chunk.subjects if m.head < token.i and m.head not in outer]
    else:  # "mention": the nearest noun phrase in an argument position, resolved
        before = [m for t in chunk.doc[: token.i] if t.dep_ in ARGUMENTS and t.i not in outer
                  and (m := refer(chunk, t)) is not None]
    if word in lexicon.PERSON_PRONOUNS:
        return next((m for m in reversed(earlier) if m.type == "PERSON"), None)
    if word in lexicon.FIRST_PERSON:  # the writer's company; inside a quotation, the speaker's: unknown
        if _quoted(chunk, token):
            return None
        first = next((t for t in chunk.doc if t.lower_ in lexicon.FIRST_PERSON and t.tag_ in ("PRP", "PRP$")
                      and not _quoted(chunk, t)), token)
        writer = _pronoun(chunk, first) if first.i != token.i else None
        # one writer to a text: "our subsidiary X … supplied to us by Y" is the same "we" as before X
        return writer or next((m for m in reversed(earlier) if m.type == "ORG"), None)
    if word not in lexicon.THING_PRONOUNS:
        return None
    if word == "its" and token.head.lower_ in lexicon.FACILITY_NOUNS | lexicon.ROLE_WORDS | lexicon.CUSTOMER_NOUNS:
        # a plant, a director, a customer belong to a firm (or to a name not known to be anything else)
        companies = [m for m in before if m.type in ("ORG", "")] or [m for m in earlier if m.type == "ORG"]
        return companies[-1] if companies else None
    if (parallel := _parallel_object(chunk, token, verb)) is not None:
        return parallel
    things = [m for m in before or earlier if m.type not in ("PERSON", "LOCATION")]
    return things[-1] if things else None


def _parallel_object(chunk: ChunkReading, token: Any, verb: Any) -> Mention | None:
    """"Y will own the foundry, and X will no longer hold shares in it": an object pronoun in the second
    of two coordinated clauses takes the first clause's object, not the nearest subject."""
    if verb is None or verb.dep_ != "conj" or token.dep_ in ("nsubj", "nsubjpass", "poss"):
        return None
    objects = [m for c in verb.head.children if c.dep_ == "dobj" and (m := refer(chunk, c)) is not None]
    return next((m for m in objects if m.type not in ("PERSON", "LOCATION")), None)


def _quoted(chunk: ChunkReading, token: Any) -> bool:
    """An odd number of quotation marks before the token: counted once per chunk, not per pronoun."""
    if chunk.quoted is None:
        marks = 0
        chunk.quoted = []
        for t in chunk.doc:
            chunk.quoted.append(marks % 2 == 1)
            marks += t.text in "\"“”"
    return chunk.quoted[token.i]


def _mentions_before(chunk: ChunkReading, token: Any) -> list[Mention]:
    if chunk.named is None:
        chunk.named = [m for t in chunk.doc if t.dep_ not in ("compound", "nmod") and (m := mention(chunk, t))]
    return [m for m in chunk.named if m.head < token.i]


def _description(chunk: ChunkReading, token: Any) -> Mention | None:
    """"the foundry" → the last name ending "Foundry"; "the company" → the last company subject."""
    named = [m for m in _mentions_before(chunk, token)
             if m.name.split()[-1].lower() in (token.lower_, token.lemma_.lower()) and m.head != token.i]
    if named:
        return named[-1]
    if token.lemma_.lower() in lexicon.ORG_DESCRIPTIONS:
        companies = [m for m in chunk.subjects if m.head < token.i and m.type == "ORG"]
        return companies[-1] if companies else None
    return None


def defined_terms(chunk: ChunkReading) -> None:
    """`X (the "Supplier")` defines a term; `X (VBL)` and "X, formerly known as Y" state aliases."""
    for token in chunk.doc:
        opened = token.i > 1 and "(" in (chunk.doc[token.i - 1].text, chunk.doc[token.i - 2].text,
                                         chunk.doc[max(token.i - 3, 0)].text)
        if token.dep_ == "appos" and opened and (holder := mention(chunk, _term_holder(chunk, token.head))) is not None:
            if token.text.isupper() and len(token.text) >= 2 and chunk.owns(token):
                add_entity(chunk, Mention(f"{holder.name} ({token.text})", holder.type, holder.head))
            elif (token.text[:1].isupper() and mention(chunk, token) is None) or chunk.doc[token.i - 1].text in "\"“":
                chunk.terms[token.lower_] = holder
                chunk.named = None  # a defined term is no name of its own
        if _ALIAS.match(" ".join(t.lower_ for t in token.lefts if t.dep_ == "advmod") + " " + token.lower_):
            holder_token = token.head if token.dep_ == "acl" else next(
                (c for c in token.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            named = [m for p in token.children if p.dep_ == "prep" and p.lower_ == "as" for m in objects(chunk, p)]
            holder = refer(chunk, holder_token) if holder_token is not None else None
            for alias in named if holder is not None and chunk.owns(token) else []:
                add_entity(chunk, Mention(f"{holder.name} ({alias.name})", holder.type or alias.type, holder.head))


def _term_holder(chunk: ChunkReading, token: Any) -> Any:
    """`X Ltd of Pune, Maharashtra (the "Buyer")`: the term hangs on the place that ends the company's
    name, yet defines the company."""
    place = token
    while place.dep_ in ("conj", "appos") and place.head.i != place.i and lex.comma_only(place):
        place = place.head
    if place.dep_ == "pobj" and place.head.lower_ == "of" and (company := mention(chunk, place.head.head)) and (
            company.type == "ORG"):
        return place.head.head
    return token


def objects(chunk: ChunkReading, prep: Any) -> list[Mention]:
    """The names a preposition governs ("from X and Y")."""
    return [m for t in prep.children if t.dep_ == "pobj" for c in lex.conjuncts(t) if (m := refer(chunk, c))]


# --- output -----------------------------------------------------------------------------------------

def relate(chunk: ChunkReading, source: Mention, relation: str, target: Mention, phrase: str,
            date: str | None = None, until: str | None = None) -> None:
    if source.name.casefold() == target.name.casefold():
        return
    key = (source.name, relation, target.name)
    if key not in chunk.relations or ((date or until) and not chunk.relations[key].date):
        chunk.relations[key] = RawRelation(source.name, relation, target.name, phrase, source.type, target.type,
                                           date, until)
    add_entity(chunk, source)
    add_entity(chunk, target)


def add_entity(chunk: ChunkReading, found: Mention) -> None:
    chunk.entities.setdefault(found.name, RawEntity(found.name, found.type))

