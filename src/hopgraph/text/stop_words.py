"""English stop words: spaCy's list, bundled (assets/stop_words_en.txt, MIT, see assets/NOTICE.md).

A copy rather than `spacy.lang.en.stop_words`: importing that runs spaCy's package import first
(~1 s, the largest part of a cold `ask`), and hopgraph must give the same names, labels and partial
name matches whether or not the `nlp` extra is installed.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def english() -> frozenset[str]:
    text = resources.files("hopgraph.assets").joinpath("stop_words_en.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())
