""""Which of the two" questions that dates do not settle: by an amount, or by what one passage says.

"Who has more singles titles, Brian Gottfried or Peter Fleming?" compares the number each
option's passage gives next to the compared words ("won 25 singles titles"); the larger (or, for
"fewer", "smaller", the smaller) wins, and an option with no number gives no answer. "Which airport
is operated by the Coos County Airport District, A or B?" takes the option whose passage says
more of the question's other words than the other option's does; one word is enough ("Which singer
is American": one passage says "American", the other "English"). On a tie the passages' opening
sentences, which say what each option is, decide ("a genus of bulbous plants, subfamily
Amaryllidoideae"); a tie there too is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hopgraph.query.short.compare import passage_of
from hopgraph.query.short.spans import content_words
from hopgraph.records.retrieval import Hit
from hopgraph.text.sentences import split_sentences

MORE = frozenset(["more", "most", "higher", "highest", "larger", "largest", "bigger", "biggest", "greater",
                  "greatest", "taller", "tallest", "longer", "longest", "many"])
FEWER = frozenset(["fewer", "fewest", "less", "least", "lower", "lowest", "smaller", "smallest", "shorter",
                   "shortest"])
NEAR = 40  # characters around a compared word within which its number stands
MIN_LEAD = 1  # more of the question's words one option's passage must say than the other's
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.]*\d)")
_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
# "a genus of two species": small amounts are written in words.
NUMBER_WORDS = {word: value for value, word in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}
_NUMBER_WORD = re.compile(rf"\b({'|'.join(NUMBER_WORDS)})\b", re.IGNORECASE)


def choose_by_amount(options: Sequence[str], words: Sequence[str], hits: Sequence[Hit]) -> tuple[str, Hit] | None:
    """The option with the larger (or smaller) number beside the compared words, and its hit."""
    more = not MORE.isdisjoint(words)
    if more == (not FEWER.isdisjoint(words)):
        return None  # neither or both: no amount is compared
    compared = _compared_words(options, words)
    amounts: list[tuple[float, str, Hit]] = []
    for option in options:
        own = passage_of(option, hits)
        amount = _amount_near(own.text, compared) if own is not None and compared else None
        if own is None or amount is None:
            return None
        amounts.append((amount, option, own))
    (first, option_a, hit_a), (second, option_b, hit_b) = amounts
    if first == second:
        return None
    return (option_a, hit_a) if (first > second) == more else (option_b, hit_b)


def choose_by_description(question: str, options: Sequence[str], hits: Sequence[Hit]) -> tuple[str, Hit] | None:
    """The option whose passage says `MIN_LEAD` more of the question's own words than the other's."""
    said = content_words(question) - set().union(*(content_words(option) for option in options))
    owns = [passage_of(option, hits) for option in options]
    if None in owns:
        return None
    for read in (str, _lead):  # all its passage says; on a tie, what each option is
        first, second = (len(content_words(read(own.text)) & said) for own in owns)
        if abs(first - second) >= MIN_LEAD:
            return (options[0], owns[0]) if first > second else (options[1], owns[1])
    return None


def _lead(text: str) -> str:
    sentences = split_sentences(text)
    return sentences[0] if sentences else text


def _compared_words(options: Sequence[str], words: Sequence[str]) -> set[str]:
    named = set().union(*(content_words(option) for option in options))
    return content_words(" ".join(words)) - named - MORE - FEWER


def _amount_near(text: str, compared: set[str]) -> float | None:
    """The number (not a year) closest to a compared word among those with every compared word
    within `NEAR` characters: "won 25 singles titles", not the "52 titles" of a doubles partnership
    for "more singles titles"; "a population of 684,360", not the area before it."""
    lowered = text.lower()
    places = [found.start() for word in compared for found in re.finditer(rf"\b{re.escape(word)}", lowered)]
    near: list[tuple[int, float]] = []
    for match in [*_NUMBER.finditer(text), *_NUMBER_WORD.finditer(text)]:
        around = lowered[max(0, match.start() - NEAR):match.end() + NEAR]
        if not _YEAR.match(match.group(1)) and all(re.search(rf"\b{re.escape(word)}", around) for word in compared):
            near.append((min(abs(place - match.start()) for place in places), _value(match.group(1))))
    return min(near)[1] if near else None


def _value(number: str) -> float:
    return float(NUMBER_WORDS.get(number.lower(), number.replace(",", "")))
