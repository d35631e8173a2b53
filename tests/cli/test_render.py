"""How ranked hits read in a terminal: the rank line, where the chunk is from, a one-line preview."""

from __future__ import annotations

from hopgraph.cli.render import render_retrieval
from hopgraph.records.retrieval import Hit, Retrieval


def test_render_retrieval_shortens_long_texts_to_the_width():
    hit = Hit(chunk_id=1, doc_id=1, title="Long", text="word " * 100, score=0.5, found_by="bm25")
    lines = render_retrieval(Retrieval("bm25", [hit]), width=40).splitlines()
    assert lines[0] == "1. Long  [bm25]  score 1.0000 (bm25 0.5000)"  # 1/rank, then the stage's own number
    assert len(lines[1].strip()) == 40 and lines[1].endswith("…")


def test_a_hit_from_a_file_shows_where_to_find_it_and_a_record_does_not_repeat_its_title():
    from_pdf = Hit(1, 1, "Casting review", "Kallur supplies pig iron.", 0.5, "bm25", source="report.pdf#p3")
    from_record = Hit(2, 2, "Galt House", "A hotel.", 0.4, "bm25", source="Galt House#1")
    lines = render_retrieval(Retrieval("bm25", [from_pdf, from_record])).splitlines()
    assert lines[0] == "1. Casting review  (report.pdf#p3)  [bm25]  score 1.0000 (bm25 0.5000)"
    assert lines[2] == "2. Galt House  [bm25]  score 0.5000 (bm25 0.4000)"


def test_the_preview_skips_heading_lines_the_title_above_already_says():
    text = "# Company Profile: Corvane Brake Systems\n\nCorvane Brake Systems Ltd designs calipers."
    profile = Hit(1, 1, "Company Profile: Corvane Brake Systems", text, 0.5, "bm25")
    notice = Hit(2, 2, "Corvane Takes a Stake", "# Corvane Takes a Stake\n\nNOTICE TO STAKEHOLDERS", 0.4, "bm25")
    lines = render_retrieval(Retrieval("bm25", [profile, notice])).splitlines()
    assert lines[1] == "   Corvane Brake Systems Ltd designs calipers."
    assert lines[3] == "   # Corvane Takes a Stake NOTICE TO STAKEHOLDERS"  # headings alone: shown as they are
