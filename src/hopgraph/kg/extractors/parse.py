"""Typed relations without an LLM: subject–verb–object facts read from spaCy's dependency parse.

Per chunk: (1) names — a head noun with its compounds is a *mention* when it holds a proper noun or a
code ("QX-12"); its type comes from a description the text gives it ("X, a town in …"), its legal
suffix or last common noun, then spaCy's label, voted over the chunk; (2) reference — "it" takes the
nearest preceding subject that does not contain it, "he"/"she" the nearest person, "the foundry" the
last name ending so, "the company" the last company subject, a defined term (`X (the "Supplier")`)
its holder, a generic phrase with a named owner ("Velora's castings") the owner; (3) clauses —
each verb's logical subject, object and prepositional objects (passives turned active, conjuncts
shared, relative clauses and "agrees to supply" given their subject) are read through the verb
lexicon (grammar.py); a verb it lacks is compared with relation prototypes by embedding when an
embedder is given, else kept as RELATED_TO with its phrase; (4) nouns — appositions and copulas
("X, a town in Y", "X, managing director of Y", "its largest customer is Y"), "Town, State",
"X Ltd of Town", an event named after its place. Negated or hedged clauses give nothing. Aliases
the text states ("(VBL)", "formerly known as") become `X (Y)` entities, which resolution reads as
two names of one entity. No co-occurrence edges.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hopgraph.kg.extractors import grammar as lex
from hopgraph.kg.facts import DEFAULT_ENTITY_TYPES, DEFAULT_RELATIONS, Vocabulary
from hopgraph.records.knowledge import ChunkFacts, RawEntity, RawRelation

EXTRACTOR = "parse-1"
DEFAULT_VOCABULARY = Vocabulary(DEFAULT_ENTITY_TYPES, DEFAULT_RELATIONS)
_ARGUMENTS = {"nsubj", "nsubjpass", "dobj", "pobj", "attr", "appos", "dative"}
# Verbs whose objects are speech or routine, not facts between two names.
_QUIET_VERBS = {"say", "tell", "announce", "confirm", "add", "note", "stress", "ask", "expect", "estimate",
                "promise", "declare", "report", "be", "have", "do", "sign", "include", "reserve"}

_ALIAS = re.compile(r"^(?:formerly|previously|also|now|better)?\s*(?:known|registered|trading|called|renamed)$")


@dataclass(frozen=True)
class Mention:
    name: str
    type: str
    head: int  # index of its head token


@dataclass
class _Chunk:
    """What one parsed chunk knows while it is read: names, references, and the facts found."""
    doc: Any
    types: dict[str, str] = field(default_factory=dict)  # a name's type, voted over the chunk
    terms: dict[str, Mention] = field(default_factory=dict)  # defined terms: "supplier" → its holder
    subjects: list[Mention] = field(default_factory=list)  # named subjects, in text order
    antecedent: str = "subject"  # the pronoun rule: nearest "subject", or nearest "mention"
    relations: dict[tuple[str, str, str], RawRelation] = field(default_factory=dict)
    ended: dict[tuple[str, str, str], str | None] = field(default_factory=dict)  # "no longer": until when
    entities: dict[str, RawEntity] = field(default_factory=dict)


def parse_facts(chunk_ids: Sequence[int], texts: Sequence[str], vocabulary: Vocabulary = DEFAULT_VOCABULARY,
                nlp: Any = None, embedder: Any = None, antecedent: str = "subject",
                progress: Callable[[int, int], None] | None = None) -> list[ChunkFacts]:
    """Typed facts per chunk, read from the dependency parse (see the module docstring)."""
    from hopgraph.text.nlp import load_model

    nlp = nlp or load_model()
    mapper = lex.PhraseMapper(embedder) if embedder is not None else None
    facts = []
    for done, (chunk_id, doc) in enumerate(zip(chunk_ids, nlp.pipe([lex.prepare(t) for t in texts]), strict=True), 1):
        chunk = _read(doc, mapper, antecedent)
        relations = [lex.in_vocabulary(r, vocabulary) for r in lex.typed(chunk.relations.values())]
        facts.append(ChunkFacts(chunk_id, EXTRACTOR, list(chunk.entities.values()), relations))
        if progress:
            progress(done, len(texts))
    return facts


def _read(doc: Any, mapper: lex.PhraseMapper | None, antecedent: str = "subject") -> _Chunk:
    chunk = _Chunk(doc, antecedent=antecedent)
    chunk.types = _vote_types(chunk)
    _defined_terms(chunk)
    for token in doc:  # subjects first, in order: pronouns refer back to them
        if token.dep_ in ("nsubj", "nsubjpass") and (found := refer(chunk, token)) is not None:
            chunk.subjects.append(replace(found, head=token.i))  # where it is the subject, for "nearest"
    for token in doc:
        if token.pos_ in ("VERB", "AUX") and (not lex.negated(token) or lex.no_longer(token)):
            _clause_facts(chunk, token, mapper)
        elif token.pos_ in ("NOUN", "PROPN"):
            _noun_facts(chunk, token)
    for key, day in chunk.ended.items():  # "X has owned Y since 2009 … X will no longer hold shares in Y"
        if key in chunk.relations and not chunk.relations[key].until:
            chunk.relations[key] = replace(chunk.relations[key], until=day)
        chunk.relations.pop(key, None) if day is None else None
    return chunk


# --- names ------------------------------------------------------------------------------------------

def mention(chunk: _Chunk, token: Any) -> Mention | None:
    """The name a head noun stands for, when it is a name: a proper noun or a code, with its compounds."""
    nominal = token.pos_ in ("PROPN", "NOUN", "NUM", "X", "ADJ") or token.dep_ in _ARGUMENTS  # "caliper/ADV"
    if not nominal or token.pos_ in ("PRON", "DET", "PUNCT") or token.lower_ in chunk.terms:
        return None
    if token.text.islower() and token.lemma_.lower() in lex.ORG_DESCRIPTIONS | lex.FACILITY_NOUNS | lex.ROLE_HEADS:
        return None  # "a Nagpur company", "the Nashik plant" describe; they do not name
    if token.text.islower() and token.lower_ in lex.EVENT_NOUNS and (named := _of_named(chunk, token)):
        return Mention(f"{token.text} of {named}", "EVENT", token.i)  # "a shortage of QX-12 calipers"
    words = lex.span(token)
    first = next((i for i, w in enumerate(words) if lex.is_proper(w)), None)
    if first is None:
        return None
    words = words[first:]  # "subsidiary OC Metals", "30,000 QX-12 units", "Plant head Dev Rao"
    kind = ""
    if len(words) > 1 and words[-1].lower_ in lex.VEHICLE_NOUNS and words[-1].text.islower():
        words, kind = words[:-1], "PRODUCT"  # "every Titan 7 truck" names the "Titan 7"
    name = re.sub(r"\s*-\s*", "-", " ".join(w.text for w in words)).strip(" ,")
    if words[-1].i == words[-1].sent.end - 1 and name.endswith("."):
        name = name[:-1]  # "… supplies Velora Ltd." ends the sentence with the abbreviation's period
    return Mention(name, chunk.types.get(name) or kind or lex.type_of(words, token), token.i)


def _of_named(chunk: _Chunk, token: Any) -> str:
    for prep in (c for c in token.children if c.dep_ == "prep" and c.lower_ == "of"):
        for pobj in (c for c in prep.children if c.dep_ == "pobj"):
            if mention(chunk, pobj) is not None:
                return " ".join(t.text for t in pobj.subtree if t.dep_ != "det")
    return ""


def types_hint(token: Any) -> str:
    """The type a name's own words give it, before any vote."""
    return lex.type_of(lex.span(token), token) if token.pos_ == "PROPN" else ""


def _vote_types(chunk: _Chunk) -> dict[str, str]:
    """One type per name in a chunk: what the text calls it ("X, a town"), else its mentions' majority;
    a one-word name takes the type of the one longer name it starts ("Marlo" of "Marlo Motors")."""
    votes: dict[str, Counter[str]] = {}
    found = {t.i: m for t in chunk.doc if t.dep_ != "compound" and (m := mention(chunk, t)) is not None}
    for i, named in found.items():
        token, counter = chunk.doc[i], votes.setdefault(named.name, Counter())
        counter[named.type] += 1 if lex.type_of(lex.span(token), token) == named.type else 10  # "the Rivo SUV"
        described = [token.head] if token.dep_ == "appos" else []
        if token.dep_ == "nsubj" and token.head.lemma_ == "be":  # "The Titan 7 is a … truck"
            described += [c for c in token.head.children if c.dep_ == "attr"]
        for noun in [c for c in token.children if c.dep_ == "appos"] + described:
            if (kind := lex.describes(noun.lemma_.lower())) and noun.i not in found:
                counter[kind] += 10  # an apposition says what it is: "X, a town in Y"
        of_company = token.head.lower_ == "of" and types_hint(chunk.doc[token.head.head.i]) == "ORG"
        if token.dep_ == "pobj" and (token.head.lower_ in ("in", "near") or of_company):
            counter["LOCATION"] += 1  # "in X", "X Ltd of Y"
        elif token.dep_ == "pobj" and lex.describes(token.head.head.lemma_.lower()) == "LOCATION":
            counter["LOCATION"] += 10  # "the state of X"
    for token in chunk.doc:  # "its Nashik factory", "whose Nashik press shop": a site's modifier is a place
        if token.dep_ == "compound" and not token.ent_type_ and token.pos_ == "PROPN" and (
                token.head.lemma_.lower() in lex.FACILITY_NOUNS) and (named := mention(chunk, token)):
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


# --- reference --------------------------------------------------------------------------------------

def refer(chunk: _Chunk, token: Any) -> Mention | None:
    """The named thing a noun phrase stands for: itself, its antecedent, or its named owner."""
    if token.lower_ in chunk.terms and token.pos_ in ("NOUN", "PROPN"):
        return chunk.terms[token.lower_]
    if token.tag_ in ("PRP", "PRP$", "WP$") or token.lower_ in ("it", "its"):
        return _pronoun(chunk, token)
    if token.tag_ in ("WDT", "WP") and token.head.dep_ == "relcl":
        return refer(chunk, token.head.head)  # "which", "that", "who" in a relative clause
    definite = any(c.lower_ in ("the", "that", "this") for c in token.children if c.dep_ == "det")
    if definite and len(lex.span(token)) == 1 and (found := _description(chunk, token)) is not None:
        return found  # "the foundry", "the Group"
    found = mention(chunk, token)
    if found is not None or token.pos_ not in ("NOUN", "PROPN"):
        return found
    for child in token.children:
        if child.dep_ == "appos" and (found := mention(chunk, child)) is not None and (
                found.type != "LOCATION" or lex.describes(token.lemma_.lower()) == "LOCATION"):
            return found  # "the managing director, Mira Kapoor"
    if token.lower_ in lex.ROLE_HEADS:
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


def _pronoun(chunk: _Chunk, token: Any) -> Mention | None:
    """The nearest-preceding-subject rule, by the pronoun's kind; a phrase never refers to itself."""
    word = token.lower_
    if word == "whose":
        clause = next((a for a in token.ancestors if a.dep_ == "relcl"), None)
        return refer(chunk, clause.head) if clause is not None else None
    outer = {a.i for a in token.ancestors}  # "the Rivo, the other model it builds": not the Rivo
    outer |= {c.i for a in token.ancestors if a.dep_ == "nsubj" for c in a.head.children if c.dep_ == "nsubj"}
    verb = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")), None)
    if verb is not None and token.dep_ not in ("nsubj", "nsubjpass", "poss"):  # "X holds shares in it": not X
        outer |= {c.i for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")}
    earlier = [m for m in _mentions_before(chunk, token) if m.head not in outer]
    if chunk.antecedent == "subject":
        before = [m for m in chunk.subjects if m.head < token.i and m.head not in outer]
    else:  # "mention": the nearest noun phrase in an argument position, resolved
        before = [m for t in chunk.doc[: token.i] if t.dep_ in _ARGUMENTS and t.i not in outer
                  and (m := refer(chunk, t)) is not None]
    if word in lex.PERSON_PRONOUNS:
        return next((m for m in reversed(earlier) if m.type == "PERSON"), None)
    if word in lex.FIRST_PERSON:  # the writer's company; inside a quotation, the speaker's: unknown
        quoted = sum(t.text in "\"“”" for t in chunk.doc[: token.i]) % 2 == 1
        return None if quoted else next((m for m in reversed(earlier) if m.type == "ORG"), None)
    if word not in lex.THING_PRONOUNS:
        return None
    if word == "its" and token.head.lower_ in lex.FACILITY_NOUNS | lex.ROLE_WORDS | lex.CUSTOMER_NOUNS:
        companies = [m for m in before if m.type == "ORG"] or [m for m in earlier if m.type == "ORG"]
        return companies[-1] if companies else None  # a plant, a director, a customer belong to a firm
    things = [m for m in before or earlier if m.type not in ("PERSON", "LOCATION")]
    return things[-1] if things else None


def _mentions_before(chunk: _Chunk, token: Any) -> list[Mention]:
    found = [mention(chunk, t) for t in chunk.doc[: token.i] if t.dep_ not in ("compound", "nmod")]
    return [m for m in found if m is not None]


def _description(chunk: _Chunk, token: Any) -> Mention | None:
    """"the foundry" → the last name ending "Foundry"; "the company" → the last company subject."""
    named = [m for m in _mentions_before(chunk, token)
             if m.name.split()[-1].lower() in (token.lower_, token.lemma_.lower()) and m.head != token.i]
    if named:
        return named[-1]
    if token.lemma_.lower() in lex.ORG_DESCRIPTIONS:
        companies = [m for m in chunk.subjects if m.head < token.i and m.type == "ORG"]
        return companies[-1] if companies else None
    return None


def _defined_terms(chunk: _Chunk) -> None:
    """`X (the "Supplier")` defines a term; `X (VBL)` and "X, formerly known as Y" state aliases."""
    for token in chunk.doc:
        opened = token.i > 1 and "(" in (chunk.doc[token.i - 1].text, chunk.doc[token.i - 2].text,
                                         chunk.doc[max(token.i - 3, 0)].text)
        if token.dep_ == "appos" and opened and (holder := mention(chunk, token.head)) is not None:
            if token.text.isupper() and len(token.text) >= 2:
                _entity(chunk, Mention(f"{holder.name} ({token.text})", holder.type, holder.head))
            elif (token.text[:1].isupper() and mention(chunk, token) is None) or chunk.doc[token.i - 1].text in "\"“":
                chunk.terms[token.lower_] = holder
        if _ALIAS.match(" ".join(t.lower_ for t in token.lefts if t.dep_ == "advmod") + " " + token.lower_):
            holder_token = token.head if token.dep_ == "acl" else next(
                (c for c in token.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            named = [m for p in token.children if p.dep_ == "prep" and p.lower_ == "as" for m in _objects(chunk, p)]
            holder = refer(chunk, holder_token) if holder_token is not None else None
            for alias in named if holder is not None else []:
                _entity(chunk, Mention(f"{holder.name} ({alias.name})", holder.type or alias.type, holder.head))


# --- clauses ----------------------------------------------------------------------------------------

def _clause_facts(chunk: _Chunk, verb: Any, mapper: lex.PhraseMapper | None) -> None:
    slots = lex.slots(verb)
    filled = {s: [m for m in (refer(chunk, t) for t in tokens) if m is not None] for s, tokens in slots.items()}
    if not any(filled.values()):
        return
    lemma = verb.lemma_.lower()
    rules = lex.VERB_RULES.get(lemma, ())
    date, until = lex.dates(slots)
    phrase, ended = lex.phrase(verb, slots), lex.no_longer(verb)
    if until is None and (ended or lex.past_perfect(verb)):  # "had owned": over by the time last named
        until = date if ended and date else lex.reference_date(verb)
    matched = False
    objects = {m.type for m in filled.get("dobj", ())}
    for rule in (r for r in rules if not objects & r.unless_object):  # selling a company is no supply
        for source in filled.get(rule.source, ()):
            for target in filled.get(rule.target, ()):
                if _fits(rule, source, target) and ended:
                    chunk.ended[(source.name, rule.relation, target.name)] = until
                elif _fits(rule, source, target):
                    _relate(chunk, source, rule.relation, target, phrase, date, until)
                    matched = True
    if not (matched or ended or lemma in _QUIET_VERBS):
        _unmapped(chunk, filled, phrase, mapper, date, until)


def _fits(rule: lex.Rule, source: Mention, target: Mention) -> bool:
    """The rule's type constraints; an untyped end passes only where a company may stand."""
    if rule.target_types and target.type not in rule.target_types and (target.type or "ORG" not in rule.target_types):
        return False
    allowed = lex.SOURCE_TYPES[rule.relation]
    return source.type in allowed or (not source.type and "ORG" in allowed)


def _unmapped(chunk: _Chunk, filled: dict[str, list[Mention]], phrase: str, mapper: lex.PhraseMapper | None,
              date: str | None, until: str | None) -> None:
    """A verb the lexicon lacks, with a named direct object: the embedder's closest relation, else
    RELATED_TO with the phrase in the description."""
    for source in filled.get("subj", ()):
        for target in filled.get("dobj", ()):
            if source.name != target.name and "PERSON" not in (source.type, target.type) and source.type:
                relation, forward = mapper.map(phrase) if mapper else ("RELATED_TO", True)
                a, b = (source, target) if forward else (target, source)
                _relate(chunk, a, relation, b, phrase, date, until)


# --- nouns ------------------------------------------------------------------------------------------

def _noun_facts(chunk: _Chunk, token: Any) -> None:
    """Facts a noun phrase states without a verb of its own."""
    here = mention(chunk, token)
    if token.dep_ == "appos" or (token.dep_ == "conj" and lex.comma_only(token)):
        holder = refer(chunk, token.head)
        if here is not None and here.type == "PERSON" and token.head.lower_ in lex.ROLE_HEADS:
            _describe(chunk, here, token.head, None)  # "its managing director, Mira Kapoor"
        elif holder is not None and holder != here:
            _describe(chunk, holder, token, here)
    elif token.dep_ == "attr" and token.head.lemma_ == "be" and not lex.negated(token.head):
        subject = next((c for c in token.head.children if c.dep_ == "nsubj"), None)
        holder = refer(chunk, subject) if subject is not None else None
        if holder is not None and mention(chunk, subject) is not None:
            _describe(chunk, holder, token, here)  # "X is a Nagpur company"
        elif here is not None and subject is not None:
            _describe(chunk, here, subject, None)  # "Its largest customer is Y"
    if here is None:
        _facility(chunk, token)
        return
    if here.type == "PERSON":
        _role_of(chunk, token, here)
    for prep in (c for c in token.children if c.dep_ == "prep" and c.lower_ in ("of", "in")):
        if here.type == "ORG":  # "Tamsin Foundry Ltd of Surat"
            for place in _places(chunk, prep):
                _relate(chunk, here, "LOCATED_IN", place, prep.lower_)
    if here.type == "EVENT":  # "the Nashik flood" happened in Nashik
        for word in lex.span(token)[:-1]:
            if word.pos_ == "PROPN" and not lex.CODE.match(word.text) and (
                    chunk.types.get(word.text) == "LOCATION" or lex.LABELS.get(word.ent_type_) == "LOCATION"):
                _relate(chunk, here, "LOCATED_IN", Mention(word.text, "LOCATION", word.i), "named after")


def _describe(chunk: _Chunk, holder: Mention, noun: Any, named: Mention | None) -> None:
    """"X, <noun phrase>" or "X is <noun phrase>": what the phrase says about X."""
    if any(c.lower_ in lex.NEGATORS for c in noun.children):
        return  # "a different business from Y"
    if named is not None:
        if named.type == "LOCATION" and holder.type in ("LOCATION", "ORG") and noun.dep_ != "attr":
            _relate(chunk, holder, "LOCATED_IN", named, "")  # "Nagpur, Maharashtra"; "Kelso Steel Ltd, Nagpur"
        return
    word = noun.lemma_.lower()
    owner = [m for c in noun.children if c.dep_ == "poss" and (m := refer(chunk, c))]
    of = [m for c in noun.children if c.dep_ == "prep" and c.lower_ in ("of", "to", "for") for m in _objects(chunk, c)]
    of += [m for c in noun.children if c.dep_ in ("appos", "conj") and (m := mention(chunk, c)) and m.type == "ORG"]
    if holder.type == "PERSON":
        if word in lex.ROLE_HEADS:
            for org in owner + of or [_default_org(chunk, noun)]:
                if org is not None and org.type in ("ORG", ""):
                    _relate(chunk, holder, "PART_OF", org, _role_words(noun))
        return
    for other in owner + of:
        if word in lex.SUBSIDIARY_NOUNS:
            _relate(chunk, other, "OWNS", holder, word)
        elif word in lex.CUSTOMER_NOUNS:
            _relate(chunk, other, "SUPPLIES", holder, word)
        elif word in lex.SUPPLIER_NOUNS and other.type in ("ORG", ""):
            _relate(chunk, holder, "SUPPLIES", other, word)
    if holder.type in ("ORG", "LOCATION", "EVENT", ""):
        for place in _where(chunk, noun):
            _relate(chunk, holder, "LOCATED_IN", place, word)


def _role_words(noun: Any) -> str:
    return " ".join([t.lower_ for t in noun.lefts if t.lower_ in lex.ROLE_WORDS] + [noun.lower_])


def _objects(chunk: _Chunk, prep: Any) -> list[Mention]:
    return [m for t in prep.children if t.dep_ == "pobj" for c in lex.conjuncts(t) if (m := refer(chunk, c))]


def _where(chunk: _Chunk, noun: Any) -> list[Mention]:
    """Places a descriptive noun puts its holder in: "a Surat company", "a town in Y", "based in Y"."""
    found = [m for c in noun.children if c.dep_ in ("compound", "nmod") and (m := mention(chunk, c))
             and m.type == "LOCATION"]
    for child in noun.children:
        if child.dep_ == "prep" and child.lower_ in ("in", "at", "of", "near"):
            found += _places(chunk, child)
        elif child.dep_ == "acl" and child.lemma_ in ("base", "locate", "headquarter", "situate"):
            found += [p for c in child.children if c.dep_ == "prep" and c.lower_ in ("in", "at")
                      for p in _places(chunk, c)]
    return found


def _places(chunk: _Chunk, prep: Any) -> list[Mention]:
    """The places after a preposition; in "in Nagpur, Maharashtra" the second names the first's state."""
    tokens = [t for p in prep.children if p.dep_ == "pobj" for t in lex.conjuncts(p)
              if t is p or not (lex.comma_only(t) and lex.describes(t.head.lemma_.lower()) != "LOCATION")]
    return [m for t in tokens if (m := refer(chunk, t)) is not None and m.type == "LOCATION"]


def _facility(chunk: _Chunk, noun: Any) -> None:
    """"its Nashik factory", "its works in Nagpur", "whose Nashik press shop": the owner's site."""
    if noun.lemma_.lower() not in lex.FACILITY_NOUNS and noun.lower_ not in lex.FACILITY_NOUNS:
        return
    owner = next((refer(chunk, c) for c in noun.children if c.dep_ == "poss"), None)
    if owner is not None and owner.type in ("ORG", ""):
        for place in _where(chunk, noun):
            _relate(chunk, owner, "LOCATED_IN", place, noun.lemma_.lower())


def _role_of(chunk: _Chunk, token: Any, person: Mention) -> None:
    """"Plant head Dev Rao", "Chairman A. Menon": a title before the name, its firm nearby."""
    words = [t for t in token.lefts if t.dep_ == "compound" for t in t.subtree]
    if any(w.lower_ in lex.ROLE_HEADS for w in words) and (org := _default_org(chunk, token)) is not None:
        _relate(chunk, person, "PART_OF", org, " ".join(w.lower_ for w in words if w.lower_ in lex.ROLE_WORDS))


def _default_org(chunk: _Chunk, token: Any) -> Mention | None:
    """The company a title refers to when it names none: the first company the chunk names (its topic)."""
    return next((m for t in chunk.doc if t.dep_ != "compound" and (m := mention(chunk, t)) and m.type == "ORG"), None)


# --- output -----------------------------------------------------------------------------------------

def _relate(chunk: _Chunk, source: Mention, relation: str, target: Mention, phrase: str,
            date: str | None = None, until: str | None = None) -> None:
    if source.name.casefold() == target.name.casefold():
        return
    key = (source.name, relation, target.name)
    if key not in chunk.relations or ((date or until) and not chunk.relations[key].date):
        chunk.relations[key] = RawRelation(source.name, relation, target.name, phrase, source.type, target.type,
                                           date, until)
    _entity(chunk, source)
    _entity(chunk, target)


def _entity(chunk: _Chunk, found: Mention) -> None:
    chunk.entities.setdefault(found.name, RawEntity(found.name, found.type))

