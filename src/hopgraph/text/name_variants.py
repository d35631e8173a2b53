"""How else a corpus writes a person's name: nicknames and one-letter spellings, resolved over texts.

A paragraph names its subject in full ("William Condon", "Babubhai Mistry"); other texts write
"Bill Condon" (a hypocorism of the given name) or "Babubhai Mistri", "Rajeev Anchal" for "Rajiv
Anchal" (a transliteration one or two letters apart). Each such "Given Surname" pair in a text
becomes an alias of the one name it can stand for, when
- the surname is the same and the given names are a known nickname pair (NICKNAMES); or
- the given name is the same and the surnames (at least six letters, same first letter) are one
  edit apart, not just a plural or possessive "s";
taking a document's person as the first and last word of its first name (the full name),
and the written form is not itself a name of the corpus (then it names that one) and stands for
exactly one document (an ambiguous variant names nothing).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

# Common English hypocorisms (given name in a text → the full given name), both ways round.
NICKNAMES = {
    "bill": "william", "will": "william", "billy": "william", "bob": "robert", "bobby": "robert", "rob": "robert",
    "dick": "richard", "rick": "richard", "jim": "james", "jimmy": "james", "joe": "joseph", "tom": "thomas",
    "tommy": "thomas", "mike": "michael", "mick": "michael", "dave": "david", "tony": "anthony", "ted": "edward",
    "ed": "edward", "eddie": "edward", "ned": "edward", "jack": "john", "johnny": "john", "harry": "henry",
    "hank": "henry", "chuck": "charles", "charlie": "charles", "fred": "frederick", "freddie": "frederick",
    "al": "albert", "alex": "alexander", "sandy": "alexander", "andy": "andrew", "larry": "lawrence",
    "jerry": "gerald", "ben": "benjamin", "sam": "samuel", "steve": "stephen", "nick": "nicholas",
    "pete": "peter", "walt": "walter", "frank": "francis", "ken": "kenneth", "don": "donald", "ron": "ronald",
    "doug": "douglas", "greg": "gregory", "matt": "matthew", "pat": "patrick", "phil": "philip", "ray": "raymond",
    "kate": "katherine", "kathy": "katherine", "liz": "elizabeth", "beth": "elizabeth", "betty": "elizabeth",
    "peggy": "margaret", "maggie": "margaret", "meg": "margaret", "sue": "susan", "jenny": "jennifer",
    "jen": "jennifer", "patty": "patricia", "debbie": "deborah", "cathy": "catherine", "annie": "anne",
    "nancy": "anne", "polly": "mary", "molly": "mary",
}
_NOT_GIVEN = frozenset({"the", "a", "an", "king", "queen", "prince", "princess", "saint", "st", "sir", "lord", "lady",
                        "duke", "count", "fort", "mount", "lake", "river", "new", "north", "south", "east", "west"})
_PAIR = re.compile(r"\b(?=([A-Z][a-z]+)\s+([A-Z][\w'-]+)\b)")


def edits(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of a and b, or limit + 1 once it is known to exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def same_given(written: str, full: str) -> bool:
    """A known nickname pair. (Names a few letters apart are often two people: Nigel, Nigella.)"""
    w, f = written.lower(), full.lower()
    return NICKNAMES.get(w) == f or NICKNAMES.get(f) == w


def same_surname(written: str, full: str) -> bool:
    if min(len(written), len(full)) < 6 or written[:1] != full[:1]:
        return False
    plural = written.rstrip("'s") == full.rstrip("'s")
    return not plural and edits(written, full, 1) <= 1


def variant_forms(doc_names: dict[int, list[str]], texts: Sequence[str]) -> dict[int, list[str]]:
    """Document → the "Given Surname" forms the texts write for its person."""
    known = {name for names in doc_names.values() for name in names}
    people: dict[str, set[tuple[int, str, str]]] = defaultdict(set)  # first letter → (doc, given, surname)
    for doc, names in doc_names.items():
        words = names[0].split() if names else []
        ends = (words[0], words[-1]) if len(words) >= 2 else ()
        if ends and words[0].lower() not in _NOT_GIVEN and all(w[:1].isupper() and w.replace("-", "").isalpha()
                                                               for w in ends):
            people[words[0][:1]].add((doc, words[0], words[-1]))
            people[words[-1][:1]].add((doc, words[0], words[-1]))
    extra: dict[int, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for text in texts:
        for given, surname in _PAIR.findall(text):
            written = f"{given} {surname}"
            if written in known or written in seen:
                continue
            seen.add(written)
            docs = {doc for doc, g, s in people.get(surname[:1], set()) | people.get(given[:1], set())
                    if (s == surname and g != given and same_given(given, g))
                    or (g == given and s != surname and same_surname(surname, s))}
            if len(docs) == 1:
                extra[docs.pop()].append(written)
    return dict(extra)
