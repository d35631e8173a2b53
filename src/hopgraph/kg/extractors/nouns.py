"""Facts a noun phrase states without a verb of its own, for the parse extractor (parse.py).

Appositions and copulas ("X, a town in Y", "X, managing director of Y", "its largest customer is Y",
"Y's suppliers include X"), "Town, State", "X Ltd of Town", a company's site ("its Nashik factory",
"operates plants in X and Y"), a title before a person's name, an event named after its place, and
trade nouns that carry a supply ("deliveries from X to Y", "Y's purchases from X").
"""

from __future__ import annotations

from typing import Any

from hopgraph.kg.extractors import grammar as lex
from hopgraph.kg.extractors import lexicon
from hopgraph.kg.extractors.reading import ChunkReading, Mention, mention, objects, refer, relate


def noun_facts(chunk: ChunkReading, token: Any) -> None:
    """Facts a noun phrase states without a verb of its own."""
    here = mention(chunk, token)
    if token.dep_ == "appos" or (token.dep_ == "conj" and lex.comma_only(token)):
        holder = refer(chunk, lex.town_of(token) or token.head)  # "in Salem, Tamil Nadu": the town's
        if here is not None and here.type == "PERSON" and token.head.lower_ in lexicon.ROLE_HEADS:
            describe(chunk, here, token.head, None)  # "its managing director, Mira Kapoor"
        elif here is not None and token.head.lemma_.lower() in _TRADE_ROLES:
            describe(chunk, here, token.head, None)  # "X's biggest customer, Y, …"
        elif holder is not None and holder != here:
            describe(chunk, holder, token, here)
    elif _role(token) == "attr" and (be := first_conjunct(token).head).lemma_ in lexicon.COPULAS and (
            not lex.negated(be)):
        subject = next((c for c in be.children if c.dep_ == "nsubj"), None)
        holder = refer(chunk, subject) if subject is not None else None
        if holder is not None and mention(chunk, subject) is not None:
            describe(chunk, holder, token, here)  # "X is a Nagpur company"
        elif here is not None and subject is not None:
            describe(chunk, here, subject, None)  # "Its largest customer is Y"
    if here is None:
        _facility(chunk, token)
        _trade(chunk, token)
        return
    if here.type == "PERSON":
        _role_of(chunk, token, here)
    if here.type in ("ORG", "") and any(c.dep_ == "amod" and c.lemma_ == "base" for c in token.children):
        for place in _where(chunk, token):  # "the Pune-based Aurex Motors"
            relate(chunk, here, "LOCATED_IN", place, "based")
    for prep in (c for c in token.children if c.dep_ == "prep" and c.lower_ in ("of", "in")):
        if here.type == "ORG":  # "Tamsin Foundry Ltd of Surat"
            for place in _places(chunk, prep):
                relate(chunk, here, "LOCATED_IN", place, prep.lower_)
    if here.type == "EVENT":  # "the Nashik flood" happened in Nashik
        for word in lex.span(token)[:-1]:
            if word.pos_ == "PROPN" and not lex.CODE.match(word.text) and (
                    chunk.types.get(word.text) == "LOCATION" or lex.LABELS.get(word.ent_type_) == "LOCATION"):
                relate(chunk, here, "LOCATED_IN", Mention(word.text, "LOCATION", word.i), "named after")


def first_conjunct(token: Any) -> Any:
    """The first of a coordination ("X and Y": X), whose role the others share."""
    while token.dep_ == "conj" and token.head is not token:
        token = token.head
    return token


def _role(token: Any) -> str:
    return first_conjunct(token).dep_


def describe(chunk: ChunkReading, holder: Mention, noun: Any, named: Mention | None) -> None:
    """"X, <noun phrase>" or "X is <noun phrase>": what the phrase says about X."""
    if any(c.lower_ in lexicon.NEGATORS for c in noun.children):
        return  # "a different business from Y"
    if named is not None:
        if named.type == "LOCATION" and holder.type in ("LOCATION", "ORG") and noun.dep_ != "attr":
            relate(chunk, holder, "LOCATED_IN", named, "")  # "Nagpur, Maharashtra"; "Kelso Steel Ltd, Nagpur"
        return
    noun = _one_of(noun)
    word = noun.lemma_.lower()
    owner = [m for c in noun.children if c.dep_ == "poss" and (m := refer(chunk, c))]
    preps = [c for c in noun.children if c.dep_ == "prep" and c.lower_ in ("of", "to", "for")]
    # "a supplier of castings to Y": the goods' own "to"/"for" names the customer
    preps += [p for c in preps if c.lower_ == "of" for o in c.children if o.dep_ == "pobj" and mention(chunk, o) is None
              for p in o.children if p.dep_ == "prep" and p.lower_ in ("to", "for")]
    of = [m for c in preps for m in objects(chunk, c)]
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
        elif child.dep_ == "amod" and child.lemma_ in ("base", "locate", "headquarter"):  # "a Pune-based maker"
            found += [m for c in child.children if c.dep_ in ("npadvmod", "compound") and (m := mention(chunk, c))
                      and m.type == "LOCATION"]
        elif child.dep_ == "prep" and child.lower_ == "with":  # "a seal maker with a plant in X"
            found += [p for o in child.children if o.dep_ == "pobj" and o.lemma_.lower() in lexicon.FACILITY_NOUNS
                      for p in _where(chunk, o)]
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
    if verb is not None and verb.lemma_.lower() in lexicon.SITE_VERBS and not lex.negated(verb):
        # "X operates a plant in Y", "X opened a mill in Y in 2019", "X has its factory in Y": the subject's site
        owner = owner or next((m for t in lex.slots(verb).get("subj", ()) if (m := refer(chunk, t))), None)
        places += [p for c in verb.children if c.dep_ == "prep" and c.lower_ in ("in", "at") for p in _places(chunk, c)]
    if owner is not None and owner.type in ("ORG", ""):
        for place in places:
            relate(chunk, owner, "LOCATED_IN", place, noun.lemma_.lower())


def _site_verb(noun: Any) -> Any:
    """The verb a site noun is the object of ("operates plants"), or the place of ("makes strip at plants")."""
    first = first_conjunct(noun)
    if first.dep_ == "dobj":
        return first.head
    if first.dep_ == "pobj" and first.head.lower_ in ("at", "in") and first.head.head.pos_ == "VERB":
        return first.head.head
    return None


def _role_of(chunk: ChunkReading, token: Any, person: Mention) -> None:
    """"Plant head Dev Rao", "Chairman A. Menon": a title before the name, its firm nearby."""
    words = [t for t in token.lefts if t.dep_ in ("compound", "nmod") for t in t.subtree]  # "Founder and CEO X"
    if any(w.lower_ in lexicon.ROLE_HEADS for w in words) and (org := _default_org(chunk, token)) is not None:
        relate(chunk, person, "PART_OF", org, " ".join(w.lower_ for w in words if w.lower_ in lexicon.ROLE_WORDS))


def _default_org(chunk: ChunkReading, token: Any) -> Mention | None:
    """The company a title refers to when it names none: the first company the chunk names (its topic)."""
    return next((m for t in chunk.doc if t.dep_ != "compound" and (m := mention(chunk, t)) and m.type == "ORG"), None)


_TRADE_ROLES = lexicon.CUSTOMER_NOUNS | lexicon.SUPPLIER_NOUNS | lexicon.SUBSIDIARY_NOUNS


def _one_of(noun: Any) -> Any:
    """"one of Y's suppliers", "one of three suppliers to Y": the role noun after "one of" (only a
    role: "one of the oldest plants in Y" says less about where X is)."""
    if noun.lower_ != "one":
        return noun
    return next((o for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"
                 for o in c.children if o.dep_ == "pobj" and o.lemma_.lower() in _TRADE_ROLES), noun)


def _trade(chunk: ChunkReading, noun: Any) -> None:
    """"Deliveries from X to Y", "X's shipments to Y", "Y's purchases from X": a supply from X to Y."""
    word = noun.lemma_.lower()
    if word not in lexicon.OUTGOING_NOUNS | lexicon.INCOMING_NOUNS:
        return
    owner = [m for c in noun.children if c.dep_ == "poss" and (m := refer(chunk, c))]
    by_prep = {c.lower_: objects(chunk, c) for c in noun.children if c.dep_ == "prep"}
    outgoing = word in lexicon.OUTGOING_NOUNS
    sources = by_prep.get("from", []) or (owner if outgoing else [])
    targets = (by_prep.get("to", []) or by_prep.get("for", [])) if outgoing else owner
    for source in (s for s in sources if s.type in ("ORG", "")):
        for target in (t for t in targets if t.type in ("ORG", "")):
            relate(chunk, source, "SUPPLIES", target, word)


def as_role(chunk: ChunkReading, slots: dict[str, list[Any]]) -> bool:
    """"Y qualified X as a second source", "Y named X as its supplier": the object holds the role
    noun, whose owner is its possessor, else the clause's subject. True when a role was read."""
    read = False
    for noun in (n for n in slots.get("as", []) if n.lemma_.lower() in lexicon.CUSTOMER_NOUNS | lexicon.SUPPLIER_NOUNS):
        owner = next((m for c in noun.children if c.dep_ == "poss" and (m := refer(chunk, c))), None)
        owner = owner or next((m for t in slots.get("subj", []) if (m := refer(chunk, t))), None)
        for holder in (m for t in slots.get("dobj", []) if (m := refer(chunk, t))):
            if owner is None or "PERSON" in (owner.type, holder.type):
                continue
            supplier, customer = (holder, owner) if noun.lemma_.lower() in lexicon.SUPPLIER_NOUNS else (owner, holder)
            relate(chunk, supplier, "SUPPLIES", customer, noun.lemma_.lower())
            read = True
    return read
