"""The pieces of server-sent answers: an answer cut into deltas, a failure after a stream began."""

from __future__ import annotations

import logging

from hopgraph.errors import InputError
from hopgraph.serve.streaming import deltas, event, failure


def test_deltas_joined_are_the_text():
    text = "Burbank,  California [chunk 4]\n\nSources:\n[chunk 4] High Impact Games#1"
    pieces = deltas(text, words=2)
    assert "".join(pieces) == text and len(pieces) == 5  # 9 words, 2 a piece
    assert deltas("") == [] and deltas("one") == ["one"]


def test_a_refusal_mid_stream_keeps_its_message_and_a_bug_is_logged(caplog):
    assert failure(InputError("no  LLM\n configured"), "POST /ask") == (400, "no LLM configured")
    with caplog.at_level(logging.ERROR, logger="hopgraph.serve"):
        status, message = failure(KeyError("chunk 7"), "POST /ask")
    assert (status, message) == (500, "internal error (KeyError); see the server's log")
    assert "POST /ask failed mid-stream" in caplog.text and "KeyError" in caplog.text


def test_an_event_is_json_or_the_text_given():
    assert event({"delta": "Burbank"}, "text").encode() == b'event: text\ndata: {"delta": "Burbank"}\n\n'
    assert event("[DONE]").encode() == b"data: [DONE]\n\n"
