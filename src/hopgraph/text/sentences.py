"""One sentence splitter (and one paragraph splitter) for everything that quotes, chunks or packs.

A sentence ends at `.`, `!` or `?` (closing quotes and brackets stay with it) when whitespace and a
capital letter, digit or opening quote follow — unless the word before the period is a title or an
initial ("Mr. Smith", "A. E. Barit", "U.S. Army"). A blank line always ends one. A single line break
does not: hard-wrapped prose (a novel, a PDF's text) breaks lines in mid-sentence; but each row of a
table ("Induction furnaces | 2") is a sentence of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Words a period follows without ending a sentence (case-insensitive, without the period).
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "sen", "rep", "gov", "gen", "col", "lt", "capt", "sgt",
    "rev", "hon", "mt", "ft", "no", "nos", "vol", "vols", "fig", "figs", "pp", "p", "ed", "eds", "al", "vs",
    "etc", "e.g", "i.e", "cf", "approx", "dept", "est", "inc", "ltd", "co", "corp", "pvt", "bros", "jan", "feb",
    "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
})
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Z0-9À-Ý])|\n[ \t]*\n\s*")
HEADING_MAX_CHARS = 120
_MARKDOWN_HEADING = re.compile(r"#{1,6}(?:\s|$)")  # CommonMark: "# Title"; "#1 priority" is prose
HEADING_MAX_WORDS = 8  # a capitalised line longer than this is shouting prose, not a heading
# A closing question mark, or a quoted question followed by a verb of speaking and at most a few words.
_ASKED = re.compile(r"\?[\"'”’)\]]*$|\?[\"'”’]+\s+(?:said|asked|cried|replied|returned|inquired|demanded|"
                    r"exclaimed|whispered|repeated|added)\b[^?\"'“‘]{0,60}$")
_MARKER = re.compile(r"\[[^\]\n]{1,40}\]")  # "[Illustration]", "[Image]": a placeholder, no sentence
TABLE_CELL = " | "  # between a table row's cells
PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_WORD_BEFORE = re.compile(r"([\w.]+)[.!?]*[\"'”’)\]]*$")
# The word before a period is looked for in this many characters before it: an abbreviation is
# short, and searching a whole sentence that holds a long run without spaces took quadratic time.
WORD_TAIL = 64


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) character offsets of each sentence, leading and trailing whitespace left out."""
    start = 0
    for match in _END.finditer(text):
        period = match.start() + 1
        if match.group().startswith(".") and _abbreviation(text[max(start, period - WORD_TAIL):period]):
            continue
        end = match.end() if not match.group()[0].isspace() else match.start()
        yield from _rows(text, start, end)
        start = match.end()
    yield from _rows(text, start, len(text))


def _rows(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A table's rows ("Induction furnaces | 2", a line each, as the DOCX reader and Markdown write
    them) are sentences of their own: joined, a row's value would run into the next row's label."""
    if text.find(TABLE_CELL, start, end) < 0 or text.find("\n", start, end) < 0:  # no copy of the sentence
        yield from _trimmed(text, start, end)
        return
    for line in re.finditer(r"[^\n]+", text[start:end]):
        yield from _trimmed(text, start + line.start(), start + line.end())


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, each with its whitespace collapsed to single spaces."""
    return [" ".join(text[a:b].split()) for a, b in sentence_spans(text)]


def stated_sentences(text: str) -> list[str]:
    """The prose sentences of `text` that state something: what an answer may quote. A question in
    the evidence ("'What has ever got your precious father, then?' said Mrs. Cratchit.") restates
    what is asked, so it looks most like the question and answers nothing."""
    return [sentence for sentence in prose_sentences(text) if not is_question(sentence)]


def is_question(sentence: str) -> bool:
    """A sentence that ends in a question mark, or a quoted question and who said it ("'Are you the
    Spirit?' asked Scrooge."); a title with one inside ("the film Who Framed Roger Rabbit? was …") is not."""
    return bool(_ASKED.search(sentence))


def prose_sentences(text: str) -> list[str]:
    """The sentences of `text` that are prose, not a heading line. A document's "# Company Profile:
    Corvane Brake Systems", "NOTICE TO STAKEHOLDERS" or, on a line of its own, "Plant Profile: Anvaya
    Foundry, Hosur" (a Word or PDF heading, whose style is gone) names a section; it states no fact
    about the question, and quoted as one it reads as a non-answer. Nor is a bracketed marker alone
    ("[Illustration]", where a book's picture stood)."""
    return [" ".join(sentence.split()) for a, b in sentence_spans(text)
            if not is_heading_line(sentence := text[a:b], own_line=_own_line(text, a, b))
            and not _MARKER.fullmatch(sentence)]


def is_heading_line(sentence: str, own_line: bool = False) -> bool:
    """A Markdown heading ("# Results"), a short line in capitals with no closing punctuation, or,
    when the sentence is a line of its own (`own_line`), a short one in title case ("Plant
    Profile: Anvaya Foundry, Hosur") or a block of short lines in capitals (a table of contents)."""
    line = sentence.strip()
    if "\n" in line:  # lines in capitals alone: a table of contents ("STAVE ONE--MARLEY'S GHOST   3")
        return own_line and all(_capital_line(part.strip()) for part in line.splitlines() if part.strip())
    if not line:
        return False
    if _MARKDOWN_HEADING.match(line):
        return True
    return _capital_line(line) or (own_line and _short_heading(line) and _title_case(line))


def _short_heading(line: str) -> bool:
    return is_heading(line) and len(line.split()) <= HEADING_MAX_WORDS


def _capital_line(line: str) -> bool:
    return _short_heading(line) and line.isupper()


def _own_line(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] fills its line: a line break (or the text's edge) on both sides. Only
    the blanks next to the span are looked at: slicing the text before every sentence would copy
    the whole chunk once per sentence."""
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    while end < len(text) and text[end] in " \t":
        end += 1
    return (start == 0 or text[start - 1] == "\n") and (end == len(text) or text[end] == "\n")


def _title_case(line: str) -> bool:
    """Every word of four letters or more capitalised ("Plant Profile: Anvaya Foundry, Hosur";
    "of", "the" may stay small), and at least two such words."""
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", line) if len(w) >= 4]
    return len(words) >= 2 and all(w[0].isupper() for w in words)


def _abbreviation(sentence_so_far: str) -> bool:
    """Whether the period that ends `sentence_so_far` belongs to a title, an initial or an acronym."""
    match = _WORD_BEFORE.search(sentence_so_far)
    if not match:
        return False
    word = match.group(1).rstrip(".")
    return (len(word) == 1 and word.isalpha()) or word.lower() in ABBREVIATIONS or ("." in word and len(word) <= 4)


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every paragraph (blank-line separated, whitespace trimmed), a heading joined
    to the paragraph after it."""
    spans, start = [], 0
    for match in [*PARAGRAPH_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
        start = match.end() if match else len(text)
    joined: list[tuple[int, int]] = []
    for span in spans:
        if joined and is_heading(text[joined[-1][0]:joined[-1][1]]):
            joined[-1] = (joined[-1][0], span[1])
        else:
            joined.append(span)
    return joined


def is_heading(block: str) -> bool:
    """One short line with no closing punctuation ("# Results", "3. Suppliers", "Acme Corp")."""
    line = block.strip()
    return "\n" not in line and len(line) <= HEADING_MAX_CHARS and (
        line.startswith("#") or line[-1] not in ".!?:;\"”")
