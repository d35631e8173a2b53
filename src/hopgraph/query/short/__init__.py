"""Short answers with no LLM: a span copied from the evidence ("Ohio River", "1887", "yes").

`expected` reads what kind of answer the question wants (a place, a person, a date, yes or no, one
of two named options); `spans` lists the candidate spans of the hits (spaCy's entities and noun
chunks, with the sentence that holds each); `choose` scores them and keeps the best, or none when
no candidate is good enough (an invented answer is worse than none); `compare` settles "which of
the two" questions by the dates found for each option.
"""

from hopgraph.query.short.choose import ShortAnswer, short_answer

__all__ = ["ShortAnswer", "short_answer"]
