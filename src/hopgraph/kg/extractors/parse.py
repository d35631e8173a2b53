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

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from hopgraph.kg.extractors import grammar as lex
from hopgraph.kg.extractors import lexicon
from hopgraph.kg.extractors.reading import (
    ChunkReading,
    Mention,
    defined_terms,
    mention,
    objects,
    refer,
    relate,
    vote_types,
)
from hopgraph.kg.facts import DEFAULT_ENTITY_TYPES, DEFAULT_RELATIONS, Vocabulary
from hopgraph.records.knowledge import ChunkFacts

EXTRACTOR = "parse-2"  # bump when the rules change: stored facts of an older version are redone
DEFAULT_VOCABULARY = Vocabulary(DEFAULT_ENTITY_TYPES, DEFAULT_RELATIONS)
# Verbs whose objects are speech or routine, not facts between two names.
_QUIET_VERBS = {"say", "tell", "announce", "confirm", "add", "note", "stress", "ask", "expect", "estimate",
                "promise", "declare", "report", "be", "have", "do", "sign", "include", "reserve"}



Context = tuple[Sequence[str], Sequence[str]]  # the chunks of its document just before it, and just after


def parse_facts(chunk_ids: Sequence[int], texts: Sequence[str], vocabulary: Vocabulary = DEFAULT_VOCABULARY,
                nlp: Any = None, embedder: Any = None, antecedent: str = "subject",
                progress: Callable[[int, int], None] | None = None,
                contexts: Sequence[Context] | None = None) -> list[ChunkFacts]:
    """Typed facts per chunk, read from the dependency parse (see the module docstring). `contexts`:
    each chunk's neighbours in its document, read for reference and types only (no fact comes from
    them). Every distinct text is parsed once, its neighbours' parses joined to it."""
    from hopgraph.text.nlp import load_model

    nlp = nlp or load_model()
    mapper = lex.PhraseMapper(embedder) if embedder is not None else None
    contexts = contexts or [((), ())] * len(texts)
    unique = list(dict.fromkeys([*texts, *(t for before, after in contexts for t in (*before, *after))]))
    parsed = dict(zip(unique, nlp.pipe([lex.prepare(t) for t in unique]), strict=True))
    facts = []
    for done, (chunk_id, text, (before, after)) in enumerate(zip(chunk_ids, texts, contexts, strict=True), 1):
        chunk = _read(*_joined(parsed, text, before, after), mapper, antecedent)
        relations = [lex.in_vocabulary(r, vocabulary) for r in lex.typed(chunk.relations.values())]
        facts.append(ChunkFacts(chunk_id, EXTRACTOR, list(chunk.entities.values()), relations))
        if progress:
            progress(done, len(texts))
    return facts


def _joined(parsed: dict[str, Any], text: str, before: Sequence[str], after: Sequence[str]) -> tuple[Any, int, int]:
    """The chunk's parse between its neighbours' (each parsed alone, so no sentence or name runs across
    a paragraph break), and the chunk's own token range in it."""
    from spacy.tokens import Doc

    own = parsed[text]
    head, tail = [parsed[t] for t in before if len(parsed[t])], [parsed[t] for t in after if len(parsed[t])]
    if not len(own) or not (head or tail):
        return own, 0, len(own)
    start = sum(len(d) for d in head)
    return Doc.from_docs([*head, own, *tail]), start, start + len(own)


def _read(doc: Any, start: int, end: int, mapper: lex.PhraseMapper | None, antecedent: str = "subject") -> ChunkReading:
    chunk = ChunkReading(doc, antecedent=antecedent, start=start, end=end)
    chunk.types = vote_types(chunk)
    defined_terms(chunk)
    for token in doc:  # subjects first, in order: pronouns refer back to them
        if token.dep_ in ("nsubj", "nsubjpass") and (found := refer(chunk, token)) is not None:
            chunk.subjects.append(replace(found, head=token.i))  # where it is the subject, for "nearest"
    for token in doc[chunk.start : chunk.end]:  # facts only from the chunk itself
        if token.pos_ in ("VERB", "AUX") and (not lex.negated(token) or lex.no_longer(token)):
            _clause_facts(chunk, token, mapper)
        elif token.pos_ in ("NOUN", "PROPN"):
            _noun_facts(chunk, token)
    _ended_around(chunk, mapper)
    for key, day in chunk.ended.items():  # "X has owned Y since 2009 … X will no longer hold shares in Y"
        if key in chunk.relations and not chunk.relations[key].until:
            chunk.relations[key] = replace(chunk.relations[key], until=day)
        chunk.relations.pop(key, None) if day is None else None
    return chunk


def _ended_around(chunk: ChunkReading, mapper: lex.PhraseMapper | None) -> None:
    """What the neighbouring text says has ended ("will no longer hold shares in it", "had owned it
    since 2009") ends the chunk's statement of the same fact: read into a scratch copy whose facts
    are dropped but whose endings are the chunk's."""
    scratch = replace(chunk, relations={}, entities={}, ended=chunk.ended)
    for token in (t for t in chunk.doc if not chunk.owns(t) and t.pos_ in ("VERB", "AUX")):
        if lex.no_longer(token) or lex.past_perfect(token):
            _clause_facts(scratch, token, mapper)
    for key, relation in scratch.relations.items():
        if relation.until:
            chunk.ended.setdefault(key, relation.until)


# --- clauses ----------------------------------------------------------------------------------------

def _clause_facts(chunk: ChunkReading, verb: Any, mapper: lex.PhraseMapper | None) -> None:
    slots = lex.slots(verb)
    if verb.lemma_.lower() in lexicon.LISTING_VERBS:
        _listed(chunk, slots)
    filled = {s: [m for m in (refer(chunk, t) for t in tokens) if m is not None] for s, tokens in slots.items()}
    if not any(filled.values()):
        return
    lemma = verb.lemma_.lower()
    rules = lexicon.VERB_RULES.get(lemma, ())
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
                    relate(chunk, source, rule.relation, target, phrase, date, until)
                    matched = True
    if not (matched or ended or lemma in _QUIET_VERBS or lemma in lexicon.LISTING_VERBS):
        _unmapped(chunk, filled, phrase, mapper, date, until)


def _listed(chunk: ChunkReading, slots: dict[str, list[Any]]) -> None:
    """"Y's suppliers include X and Z", "X counts Y among its customers": each listed name holds the
    role noun, as in "X, a supplier of Y" (`_describe`)."""
    roles = lexicon.CUSTOMER_NOUNS | lexicon.SUPPLIER_NOUNS
    listed = [m for t in slots.get("dobj", []) if (m := mention(chunk, t)) is not None]
    for nouns in (slots.get("subj", []), slots.get("among", [])):
        for noun in (n for n in nouns if n.lemma_.lower() in roles):
            for named in listed:
                _describe(chunk, named, noun, None)


def _fits(rule: lexicon.Rule, source: Mention, target: Mention) -> bool:
    """The rule's type constraints; an untyped end passes only where a company may stand."""
    if rule.target_types and target.type not in rule.target_types and (target.type or "ORG" not in rule.target_types):
        return False
    allowed = lexicon.SOURCE_TYPES[rule.relation]
    return source.type in allowed or (not source.type and "ORG" in allowed)


def _unmapped(chunk: ChunkReading, filled: dict[str, list[Mention]], phrase: str, mapper: lex.PhraseMapper | None,
              date: str | None, until: str | None) -> None:
    """A verb the lexicon lacks, with a named direct object: the embedder's closest relation, else
    RELATED_TO with the phrase in the description."""
    for source in filled.get("subj", ()):
        for target in filled.get("dobj", ()):
            if source.name != target.name and "PERSON" not in (source.type, target.type) and source.type:
                relation, forward = mapper.map(phrase) if mapper else ("RELATED_TO", True)
                a, b = (source, target) if forward else (target, source)
                relate(chunk, a, relation, b, phrase, date, until)


# --- nouns ------------------------------------------------------------------------------------------

def _noun_facts(chunk: ChunkReading, token: Any) -> None:
    """Facts a noun phrase states without a verb of its own."""
    here = mention(chunk, token)
    if token.dep_ == "appos" or (token.dep_ == "conj" and lex.comma_only(token)):
        holder = refer(chunk, token.head)
        if here is not None and here.type == "PERSON" and token.head.lower_ in lexicon.ROLE_HEADS:
            _describe(chunk, here, token.head, None)  # "its managing director, Mira Kapoor"
        elif holder is not None and holder != here:
            _describe(chunk, holder, token, here)
    elif _role(token) == "attr" and (be := _first(token).head).lemma_ == "be" and not lex.negated(be):
        subject = next((c for c in be.children if c.dep_ == "nsubj"), None)
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
                relate(chunk, here, "LOCATED_IN", place, prep.lower_)
    if here.type == "EVENT":  # "the Nashik flood" happened in Nashik
        for word in lex.span(token)[:-1]:
            if word.pos_ == "PROPN" and not lex.CODE.match(word.text) and (
                    chunk.types.get(word.text) == "LOCATION" or lex.LABELS.get(word.ent_type_) == "LOCATION"):
                relate(chunk, here, "LOCATED_IN", Mention(word.text, "LOCATION", word.i), "named after")


def _first(token: Any) -> Any:
    """The first of a coordination ("X and Y": X), whose role the others share."""
    while token.dep_ == "conj" and token.head is not token:
        token = token.head
    return token


def _role(token: Any) -> str:
    return _first(token).dep_


def _describe(chunk: ChunkReading, holder: Mention, noun: Any, named: Mention | None) -> None:
    """"X, <noun phrase>" or "X is <noun phrase>": what the phrase says about X."""
    if any(c.lower_ in lexicon.NEGATORS for c in noun.children):
        return  # "a different business from Y"
    if named is not None:
        if named.type == "LOCATION" and holder.type in ("LOCATION", "ORG") and noun.dep_ != "attr":
            relate(chunk, holder, "LOCATED_IN", named, "")  # "Nagpur, Maharashtra"; "Kelso Steel Ltd, Nagpur"
        return
    word = noun.lemma_.lower()
    owner = [m for c in noun.children if c.dep_ == "poss" and (m := refer(chunk, c))]
    of = [m for c in noun.children if c.dep_ == "prep" and c.lower_ in ("of", "to", "for") for m in objects(chunk, c)]
    of += [m for c in noun.children if c.dep_ in ("appos", "conj") and (m := mention(chunk, c)) and m.type == "ORG"]
    if holder.type == "PERSON":
        if word in lexicon.ROLE_HEADS:
            for org in owner + of or [_default_org(chunk, noun)]:
                if org is not None and org.type in ("ORG", ""):
                    relate(chunk, holder, "PART_OF", org, _role_words(noun))
        return
    for other in owner + of:
        if word in lexicon.SUBSIDIARY_NOUNS:
            relate(chunk, other, "OWNS", holder, word)
        elif word in lexicon.CUSTOMER_NOUNS:
            relate(chunk, other, "SUPPLIES", holder, word)
        elif word in lexicon.SUPPLIER_NOUNS and other.type in ("ORG", ""):
            relate(chunk, holder, "SUPPLIES", other, word)
        elif word in lexicon.HOME_NOUNS and holder.type == "LOCATION" and other.type in ("ORG", ""):
            relate(chunk, other, "LOCATED_IN", holder, word)
    if holder.type in ("ORG", "LOCATION", "EVENT", ""):
        for place in _where(chunk, noun):
            relate(chunk, holder, "LOCATED_IN", place, word)


def _role_words(noun: Any) -> str:
    return " ".join([t.lower_ for t in noun.lefts if t.lower_ in lexicon.ROLE_WORDS] + [noun.lower_])


def _where(chunk: ChunkReading, noun: Any) -> list[Mention]:
    """Places a descriptive noun puts its holder in: "a Surat company", "a town in Y", "based in Y"."""
    found = [m for c in noun.children if c.dep_ in ("compound", "nmod") and (m := mention(chunk, c))
             and m.type == "LOCATION"]
    for child in noun.children:
        if child.dep_ == "prep" and child.lower_ in ("in", "at", "of", "near"):
            found += [p for prep in lex.conjuncts(child) for p in _places(chunk, prep)]  # "in X and in Y"
        elif child.dep_ == "acl" and child.lemma_ in ("base", "locate", "headquarter", "situate"):
            found += [p for c in child.children if c.dep_ == "prep" and c.lower_ in ("in", "at")
                      for p in _places(chunk, c)]
    return found


def _places(chunk: ChunkReading, prep: Any) -> list[Mention]:
    """The places after a preposition; in "in Nagpur, Maharashtra" the second names the first's state."""
    tokens = [t for p in prep.children if p.dep_ == "pobj" for t in lex.conjuncts(p)
              if t is p or not (lex.comma_only(t) and lexicon.describes(t.head.lemma_.lower()) != "LOCATION")]
    return [m for t in tokens if (m := refer(chunk, t)) is not None and m.type == "LOCATION"]


def _facility(chunk: ChunkReading, noun: Any) -> None:
    """"its Nashik factory", "its works in Nagpur", "whose Nashik press shop": the owner's site."""
    if noun.lemma_.lower() not in lexicon.FACILITY_NOUNS and noun.lower_ not in lexicon.FACILITY_NOUNS:
        return
    owner = next((refer(chunk, c) for c in noun.children if c.dep_ == "poss"), None)
    places = _where(chunk, noun)
    verb = _site_verb(noun)
    if owner is None and verb is not None and verb.lemma_.lower() in lexicon.SITE_VERBS and not lex.negated(verb):
        # "X operates a plant in Y", "X opened a mill in Y in 2019": the subject's site
        owner = next((m for t in lex.slots(verb).get("subj", ()) if (m := refer(chunk, t))), None)
        places += [p for c in verb.children if c.dep_ == "prep" and c.lower_ in ("in", "at") for p in _places(chunk, c)]
    if owner is not None and owner.type in ("ORG", ""):
        for place in places:
            relate(chunk, owner, "LOCATED_IN", place, noun.lemma_.lower())


def _site_verb(noun: Any) -> Any:
    """The verb a site noun is the object of ("operates plants"), or the place of ("makes strip at plants")."""
    first = _first(noun)
    if first.dep_ == "dobj":
        return first.head
    if first.dep_ == "pobj" and first.head.lower_ in ("at", "in") and first.head.head.pos_ == "VERB":
        return first.head.head
    return None


def _role_of(chunk: ChunkReading, token: Any, person: Mention) -> None:
    """"Plant head Dev Rao", "Chairman A. Menon": a title before the name, its firm nearby."""
    words = [t for t in token.lefts if t.dep_ == "compound" for t in t.subtree]
    if any(w.lower_ in lexicon.ROLE_HEADS for w in words) and (org := _default_org(chunk, token)) is not None:
        relate(chunk, person, "PART_OF", org, " ".join(w.lower_ for w in words if w.lower_ in lexicon.ROLE_WORDS))


def _default_org(chunk: ChunkReading, token: Any) -> Mention | None:
    """The company a title refers to when it names none: the first company the chunk names (its topic)."""
    return next((m for t in chunk.doc if t.dep_ != "compound" and (m := mention(chunk, t)) and m.type == "ORG"), None)


