"""A text arriving in blocks, cut into parts that are small enough to tokenize at once.

`paragraph_parts`: each paragraph (text/sentences.paragraph_spans: blank-line separated, a heading
joined to the paragraph after it) as one part, or — a paragraph longer than `slice_chars` — as
several, each cut where a sentence starts. `text_slices`: the whole text in slices cut at a space.
Either way, no more than about `slice_chars` plus one block of text is held, however long the
document or its paragraphs: a file without blank lines is one paragraph of megabytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from hopgraph.text.sentences import PARAGRAPH_BREAK, is_heading, sentence_spans


@dataclass(frozen=True)
class Part:
    """Text at `start` (a character offset in the document); `opens`: the first part of a paragraph."""

    start: int
    text: str
    opens: bool = True


class _Buffer:
    """The text not yet handed out: `text[pos:]` starts at document offset `base + pos`; `scan` is
    where the search for the next paragraph break goes on (past a heading that waits)."""

    def __init__(self) -> None:
        self.text, self.base, self.pos, self.scan = "", 0, 0, 0

    def add(self, block: str) -> None:
        # Dropping what was handed out only when a block arrives keeps each cut O(1), not O(text).
        self.base += self.pos
        self.scan -= self.pos
        self.text, self.pos = self.text[self.pos:] + block, 0

    def take(self, end: int, opens: bool = True) -> Part:
        part = Part(self.base + self.pos, self.text[self.pos:end], opens)
        self.pos = self.scan = max(end, self.scan)
        return part

    def skip(self, end: int) -> None:
        self.pos = self.scan = end


def paragraph_parts(blocks: Iterable[str], slice_chars: int) -> Iterator[Part]:
    """The paragraphs of the text in `blocks`, each as one part or (longer than `slice_chars`) several."""
    paragraphs = _Paragraphs(slice_chars)
    for block in blocks:
        yield from paragraphs.feed(block)
    yield from paragraphs.feed(None)


class _Paragraphs:
    def __init__(self, slice_chars: int) -> None:
        self.buf, self.slice_chars = _Buffer(), slice_chars
        self.held = False  # a heading waits at buf.pos for the paragraph it joins
        self.opened = False  # the paragraph at buf.pos has handed out a part already

    def feed(self, block: str | None) -> Iterator[Part]:
        """The parts that the text so far completes; `None`: the text has ended."""
        buf = self.buf
        if block is not None:
            buf.add(block)
        while match := PARAGRAPH_BREAK.search(buf.text, buf.scan):
            paragraph = buf.text[buf.pos:match.start()]
            if not paragraph.strip():  # whitespace before the first paragraph
                buf.skip(match.end())
            elif not self.held and not self.opened and is_heading(paragraph):
                self.held, buf.scan = True, match.end()
            else:
                yield from self._cut(match.start(), ends=True)
                buf.skip(match.end())
        if block is not None:
            yield from self._cut(len(buf.text), ends=False)
        elif buf.text[buf.pos:].strip():
            yield from self._cut(len(buf.text), ends=True)

    def _cut(self, end: int, ends: bool) -> Iterator[Part]:
        """The paragraph at buf.pos up to `end`: its first sentences while more than `slice_chars`
        remain, and (`ends`: the paragraph ends at `end`) the rest."""
        while end - self.buf.pos > self.slice_chars:
            yield self._take(_sentence_cut(self.buf.text, self.buf.pos, self.slice_chars))
        if ends:
            yield self._take(end)
            self.opened = False

    def _take(self, end: int) -> Part:
        part = self.buf.take(end, opens=not self.opened)
        self.held, self.opened = False, True
        return part


def _sentence_cut(text: str, pos: int, slice_chars: int) -> int:
    """Where to end a part of the paragraph at `pos`: where the last sentence that starts within
    `slice_chars` starts (it may go on past them), or — one sentence runs past them — at a space."""
    window = text[pos:pos + slice_chars]
    starts = [a for a, _ in sentence_spans(window)]
    if len(starts) > 1:
        return pos + starts[-1]
    return pos + _space_cut(window)


def _space_cut(window: str) -> int:
    """After the last space in the second half of `window`, else its end (a run without spaces)."""
    space = max(window.rfind(" ", len(window) // 2), window.rfind("\n", len(window) // 2))
    return space + 1 if space > 0 else len(window)


def text_slices(blocks: Iterable[str], slice_chars: int) -> Iterator[Part]:
    """The text in `blocks` in slices of at most `slice_chars`, each ending after a space if one is
    near its end (a token never spans two slices unless the text has no space for that long)."""
    buf = _Buffer()
    for block in blocks:
        buf.add(block)
        while len(buf.text) - buf.pos > slice_chars:
            window = buf.text[buf.pos:buf.pos + slice_chars]
            yield buf.take(buf.pos + _space_cut(window))
    if buf.pos < len(buf.text):
        yield buf.take(len(buf.text))
