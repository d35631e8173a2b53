"""A file's bytes decode the same way read whole (`decode_text`) and block by block (`decoded_blocks`):
the same text, and the same one-line reason for bytes that are binary or not UTF-8."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hopgraph.errors import UnreadableFile
from hopgraph.ingest import textfile

CASES = [b"\xef\xbb\xbfplain text", b"caf\xc3\xa9", b"ok\xffbad", b"\xef\xbb\xbfok\xffbad", b"cut \xe2\x82",
         b"a\x00binary", b"\xef\xbb"]


def _outcome(read: Callable[[], str]) -> str:
    try:
        return "text: " + read()
    except UnreadableFile as err:
        return "error: " + err.reason


@pytest.mark.parametrize("data", CASES)
def test_whole_and_block_reads_agree(tmp_path: Path, data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    monkeypatch.setattr(textfile, "BLOCK_BYTES", 3)  # characters cut between blocks too
    whole = _outcome(lambda: textfile.decode_text(path, data))
    blocks = _outcome(lambda: "".join(textfile.decoded_blocks(path)))
    if b"\x00" not in data and _decodes(data):
        assert whole == "text: " + data.decode("utf-8-sig")
    assert blocks == whole


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return True


def test_reasons_name_the_problem() -> None:
    with pytest.raises(UnreadableFile, match="binary file"):
        textfile.decode_text(Path("x.txt"), b"\x00\x01")
    with pytest.raises(UnreadableFile, match=r"not UTF-8 text \(invalid start byte at byte 2\)"):
        textfile.decode_text(Path("x.txt"), b"ok\xff")
    with pytest.raises(UnreadableFile, match=r"at byte 5\)"):  # counted from the file's start, BOM included
        textfile.decode_text(Path("x.txt"), b"\xef\xbb\xbfok\xff")
