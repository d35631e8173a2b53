"""A JSON reply's text field read while it streams (llm/partial.py)."""

from __future__ import annotations

import json

from hopgraph.llm.partial import field_so_far, field_text


def cut(text: str, size: int) -> list[str]:
    return [text[start:start + size] for start in range(0, len(text), size)]


def test_the_field_grows_piece_by_piece_and_the_rest_of_the_object_is_not_shown():
    reply = json.dumps({"answer": "Ohio River", "citations": [3, 7]})
    shown = list(field_text(cut(reply, 3), "answer"))
    assert "".join(shown) == "Ohio River" and len(shown) >= 3


def test_escapes_and_non_ascii_cut_mid_way_come_out_decoded():
    answer = 'He said "no" — twice\nthen left \u00e9'
    reply = json.dumps({"answer": answer, "citations": []})  # ensure_ascii: \u escapes cut across pieces
    for size in (1, 2, 5):
        assert "".join(field_text(cut(reply, size), "answer")) == answer


def test_a_fenced_reply_and_a_later_field_order_still_give_the_field():
    reply = "```json\n" + json.dumps({"citations": [1], "answer": "1887"}) + "\n```"
    assert "".join(field_text(cut(reply, 4), "answer")) == "1887"


def test_every_piece_is_read_after_the_field_ends():
    read: list[str] = []

    def pieces():
        for piece in cut(json.dumps({"answer": "yes", "citations": [1, 2, 3]}), 2):
            read.append(piece)
            yield piece

    assert "".join(field_text(pieces(), "answer")) == "yes"
    assert "".join(read).endswith("]}")


def test_nothing_before_the_field_has_any_text():
    assert field_so_far("", "answer") == field_so_far('{"ans', "answer") == field_so_far('{"answer": 3', "answer") == ""
