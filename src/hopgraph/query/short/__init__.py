"""Short answers with no LLM: a span copied from the evidence ("Ohio River", "1887", "yes").

`expected` reads what kind of answer the question wants (a place, a person, a date, yes or no, one
of two named options); `named` names each hit by its title, or by the name its lead sentence defines
when the title is a file or an id its text never says; `spans` picks the hits' sentences most likely
to hold it and their entities; `cloze` fills the gap of a question that ends in its question word
("… depictions of what?") from the sentence that says the rest of it; `common` finds the noun two
named things' passages share ("what type of media do A and B have in common?"); `described` names
the thing whose passage opens with the question's description ("Which Danish heavy metal band …");
`chain` finds the passage of whoever fills the role a chain question asks about ("the director of
film X"), the only one its answer is then read from; `kin` walks a biography's parents for "Who is
X's paternal grandmother?"; `choose` scores the entities and keeps the best, or none when no
candidate is good enough (an invented answer is worse than none); `compare` settles "which of the
two" questions by the dates found for each option, and yes/no questions by what the two passages
say; `options` settles the rest by the number beside the compared words ("a higher population") or
by what only one option's passage says.
"""

from __future__ import annotations

from collections.abc import Sequence

from hopgraph.query.short.choose import short_answer
from hopgraph.records.answers import ShortAnswer
from hopgraph.records.retrieval import Hit
from hopgraph.text.nlp import load_model, parser_available

__all__ = ["ShortAnswer", "short_answer", "short_answer_of"]


def short_answer_of(question: str, hits: Sequence[Hit]) -> ShortAnswer | None:
    """The short answer with spaCy's small English model (loaded once); None without the `nlp` extra."""
    return short_answer(question, hits, load_model()) if parser_available() else None
