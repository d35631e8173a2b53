"""A file's bytes as text: decoded whole (`decode_text`) or, for a big file, block by block, with one
binary sniff and one UTF-8 error (its byte counted from the file's start) for both.

A big text file is read block by block: decoded, checked and stripped as it streams, never held whole.

A .txt or .md file larger than `STREAM_BYTES` becomes a `Document` whose text is read again from
the file when it is hashed and when it is chunked (`Document.reread`), so a 200 MB file costs a
block of memory, not 200 MB of text (or 800 MB, as a str, if a single character is outside Latin-1).
The blocks join into exactly the text a whole read gives: BOM dropped, leading and trailing
whitespace stripped. The file is read once here, to refuse it (binary, not UTF-8, empty) before
anything is indexed, as a whole read would.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path, PurePath

from hopgraph.errors import UnreadableFile

STREAM_BYTES = 8 << 20  # a text file larger than this is streamed, not read whole
BLOCK_BYTES = 1 << 20
BINARY_SNIFF_BYTES = 8192  # a NUL byte among these: a binary file, as for a whole read
HEAD_CHARS = 1 << 16  # a `# ` heading is looked for in the first five lines within these characters


def refuse_binary(path: PurePath, head: bytes) -> None:
    """A NUL byte among the first BINARY_SNIFF_BYTES: a binary file, not text."""
    if b"\x00" in head[:BINARY_SNIFF_BYTES]:
        raise UnreadableFile(path, "looks like a binary file (NUL bytes), not text")


def decode_text(path: PurePath, data: bytes) -> str:
    """A whole file's bytes as UTF-8 text (BOM dropped); binary or non-UTF-8 bytes raise
    `UnreadableFile` naming the reason, as `decoded_blocks` does for a file read block by block."""
    refuse_binary(path, data)
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as err:  # the byte counted from the file's start, BOM included
        raise not_utf8(path, err, bom + err.start) from None
    if not text.strip():  # a BOM, U+2028 or \x1c alone: bytes that decode to nothing but spaces
        raise UnreadableFile(path, "file is empty (only spaces and separators)")
    return text


def decoded_blocks(path: Path) -> Iterator[str]:
    """The file's UTF-8 text (BOM dropped) in blocks of about BLOCK_BYTES; a file that cannot be
    read, is binary or is not UTF-8 raises `UnreadableFile` naming the reason."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    consumed = 0  # bytes handed to the decoder so far
    first = True  # no text yet: a BOM would start it
    try:
        with path.open("rb") as file:
            while data := file.read(BLOCK_BYTES):
                if not consumed:
                    refuse_binary(path, data)
                text = _decode(decoder, data, consumed, path)
                consumed += len(data)
                if first and text:
                    text, first = text.removeprefix("\ufeff"), False
                yield text
            yield _decode(decoder, b"", consumed, path, final=True)
    except OSError as err:  # permission denied, a broken disk, a file that vanished since listing
        raise UnreadableFile(path, f"cannot read the file ({err.strerror or err})") from None


def _decode(decoder: codecs.IncrementalDecoder, data: bytes, consumed: int, path: PurePath,
            final: bool = False) -> str:
    held = len(decoder.getstate()[0])  # bytes of a character the previous block cut in two
    try:
        return decoder.decode(data, final)
    except UnicodeDecodeError as err:
        raise not_utf8(path, err, consumed - held + err.start) from None


def not_utf8(path: PurePath, err: UnicodeDecodeError, offset: int) -> UnreadableFile:
    return UnreadableFile(path, f"not UTF-8 text ({err.reason} at byte {offset})")


def stripped(blocks: Iterator[str]) -> Iterator[str]:
    """The blocks with the text's leading and trailing whitespace left out (as `str.strip` would)."""
    started = False
    pending = ""  # whitespace at the end so far: text only if more text follows it
    for block in blocks:
        if not started:
            block = block.lstrip()
            started = bool(block)
        body = block.rstrip()
        if body:
            yield pending + body
            pending = ""
        pending += block[len(body):]


def head_and_check(path: Path) -> str:
    """The first HEAD_CHARS of the file's text (where a heading is looked for), after reading the
    whole file once to refuse it as a whole read would: binary, not UTF-8, or only whitespace."""
    head, blank = "", True
    for block in decoded_blocks(path):
        if len(head) < HEAD_CHARS:
            head += block[:HEAD_CHARS - len(head)]
        blank = blank and not block.strip()
    if blank:
        raise UnreadableFile(path, "file is empty")
    return head


def text_blocks(path: Path) -> Iterator[str]:
    """The file's text, stripped, block by block: what `Document.reread` gives for a streamed file."""
    return stripped(decoded_blocks(path))
