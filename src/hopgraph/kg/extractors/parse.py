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
embedder is given, else kept as RELATED_TO with its phrase; (4) nouns (nouns.py) — appositions and
copulas ("X, a town in Y", "its largest customer is Y"), sites, titles, trade nouns ("deliveries from X
to Y"). A chunk is read between its document's neighbouring chunks, for reference and types; facts
come from its own tokens only. Negated or hedged clauses give nothing. Aliases
the text states ("(VBL)", "formerly known as") become `X (Y)` entities, which resolution reads as
two names of one entity. No co-occurrence edges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from hopgraph.kg.extractors import grammar as lex
from hopgraph.kg.extractors import lexicon
from hopgraph.kg.extractors.nouns import as_role, describe, noun_facts
from hopgraph.kg.extractors.reading import (
    ChunkReading,
    Mention,
    defined_terms,
    mention,
    refer,
    relate,
    vote_types,
)
from hopgraph.kg.facts import DEFAULT_ENTITY_TYPES, DEFAULT_RELATIONS, Vocabulary
from hopgraph.records.knowledge import ChunkFacts

EXTRACTOR = "parse-3"  # bump when the rules change: stored facts of an older version are redone
DEFAULT_VOCABULARY = Vocabulary(DEFAULT_ENTITY_TYPES, DEFAULT_RELATIONS)
# Verbs whose objects are speech or routine, not facts between two names.
_QUIET_VERBS = {"say", "tell", "announce", "confirm", "add", "note", "stress", "ask", "expect", "estimate",
                "promise", "declare", "report", "be", "have", "do", "sign", "include", "reserve", "become",
                "remain"}



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
    chunk.named = None  # names read before the vote had no types
    defined_terms(chunk)
    for token in doc:  # subjects first, in order: pronouns refer back to them
        if token.dep_ in ("nsubj", "nsubjpass") and (found := refer(chunk, token)) is not None:
            chunk.subjects.append(replace(found, head=token.i))  # where it is the subject, for "nearest"
    for token in doc[chunk.start : chunk.end]:  # facts only from the chunk itself
        if token.pos_ in ("VERB", "AUX") and (not lex.negated(token) or lex.no_longer(token)):
            _clause_facts(chunk, token, mapper)
        elif token.pos_ in ("NOUN", "PROPN") or token.lower_ == "one":  # "one of its suppliers"
            noun_facts(chunk, token)
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
    role = as_role(chunk, slots)  # "qualified X as a supplier" states the role, not a vaguer relation
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
    if not (matched or ended or role or lemma in _QUIET_VERBS or lemma in lexicon.LISTING_VERBS):
        _unmapped(chunk, filled, phrase, mapper, date, until)


def _listed(chunk: ChunkReading, slots: dict[str, list[Any]]) -> None:
    """"Y's suppliers include X and Z", "X counts Y among its customers": each listed name holds the
    role noun, as in "X, a supplier of Y" (`nouns.describe`)."""
    roles = lexicon.CUSTOMER_NOUNS | lexicon.SUPPLIER_NOUNS
    listed = [m for t in slots.get("dobj", []) if (m := mention(chunk, t)) is not None]
    for nouns in (slots.get("subj", []), slots.get("among", [])):
        for noun in (n for n in nouns if n.lemma_.lower() in roles):
            for named in listed:
                describe(chunk, named, noun, None)


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
