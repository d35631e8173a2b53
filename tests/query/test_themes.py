"""The offline themes answer: quotable sentences, chosen by likeness to the theme's name (not by
position), no sentence twice, and reports without labels answered from their findings."""

from __future__ import annotations

from testkit import BagOfWordsEmbedder

from hopgraph.query.themes import candidate_sentences, quotable, render, supporting, themes
from hopgraph.records.communities import CommunityReport, Finding

LEDGER = {
    7: "Scrooge kept a ledger, and he kept a fire, and he kept a clerk who was cold all the winter long. "
       "The ledger of debts lay open on the desk; the ledger of debts was never shut.",
    8: "Bob Cratchit warmed his hands at the candle while the ledger lay closed on the desk.",
}
KITCHEN = {
    9: "Tiny Tim sat in his little stool by the fire. The pudding was out of the copper at last. "
       "Mrs. Cratchit set the pudding on the table, and Tiny Tim beat on the table with his knife.",
}


def report(community_id: int, labels: list[str] | None, rating: float = 5.0) -> CommunityReport:
    findings = [Finding(f"Finding {community_id} about {labels[0] if labels else 'nothing'}, told in full.",
                        chunk_ids=[100 + community_id])]
    return CommunityReport(community_id, 0, f"Report {community_id}", "About it.", rating, [], [], findings,
                           labels=labels)


def chunks_of(community_id: int) -> dict[int, str]:
    return {1: LEDGER, 2: KITCHEN}.get(community_id, LEDGER)


def test_only_whole_sentences_of_prose_are_quoted() -> None:
    assert quotable("'I am in the presence of the Ghost of Christmas Yet to Come?' said Scrooge.")
    assert not quotable("Alas for Tiny Tim, he bore a little crutch")  # cut off at the chunk's edge
    assert not quotable("and had his limbs supported by an iron frame, all the way home!")  # its other half
    assert not quotable("[Illustration: HE PRODUCED A DECANTER OF CURIOUSLY LIGHT WINE]")
    assert not quotable("STAVE ONE--MARLEY'S GHOST 3 STAVE TWO--THE FIRST OF THE THREE SPIRITS 37.")
    assert not quotable("Marley was dead.")  # too short to say anything


def test_the_supporting_sentence_is_the_one_most_like_the_name_not_the_first() -> None:
    candidates = candidate_sentences(LEDGER, ["ledger", "debts"])
    assert [c for _, c, _ in candidates] == [7, 7, 8]  # all three say "ledger"
    order = supporting("ledger · debts", candidates, BagOfWordsEmbedder())
    assert order[0] == 1 and candidates[1][0].startswith("The ledger of debts")  # second in the text
    # Without an embedder: the sentence saying the most labels (the same one here).
    assert supporting("ledger · debts", candidates, None)[0] == 1


def test_themes_are_named_by_their_labels_and_never_repeat_a_sentence() -> None:
    ranked = [(report(1, ["ledger", "debts", "desk"]), 9.0), (report(3, ["ledger", "candle"]), 8.0),
              (report(2, ["pudding", "Tiny Tim", "stool"]), 7.0)]
    found = themes(ranked, 3, 2, chunks_of, BagOfWordsEmbedder())
    assert [t.name for t in found] == ["ledger · debts · desk", "ledger · candle", "pudding · Tiny Tim · stool"]
    sentences = [s for t in found for s, _ in t.sentences]
    assert len(sentences) == len(set(sentences)) == 5  # the second ledger theme gets what the first left
    assert len(found[0].sentences) == 2 and len(found[1].sentences) == 1
    assert found[2].chunk_ids == [9] and found[2].sentences[0][0].startswith("Tiny Tim sat in his little stool")
    text = render(found)
    assert text.startswith("Themes (no LLM configured)") and "1. ledger · debts · desk" in text
    assert "[chunks 9]" in text


def test_a_report_without_labels_is_a_theme_of_its_findings_and_one_with_no_support_is_skipped() -> None:
    unsupported = report(4, ["goose"])  # its name is said in none of its chunks
    found = themes([(unsupported, 9.0), (report(5, None), 8.0), (report(2, ["pudding"]), 7.0)], 2, 2,
                   chunks_of, BagOfWordsEmbedder())
    assert [t.community_id for t in found] == [5, 2]
    assert found[0].name == "Report 5" and found[0].sentences == [("Finding 5 about nothing, told in full.", [105])]
