"""The two-hop question of the bundled HotpotQA sample that the adapter tests retrieve: its records,
the paragraph only a link finds, and the bridge paragraph that names it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RECORDS = 5  # the first five records pool 50 paragraphs: enough distractors, indexed in seconds
# "The Ran Paul presidential campaign, 2016 event was held at a hotel on what river?" The campaign's
# paragraph names the Galt House; only the Galt House's paragraph says "Ohio River". Plain hybrid
# search misses it in the top 5; names + links follow the name there.
QUESTION_ID = "5ade79335542997c77adee38"
LINKED_TITLE = "Galt House"
BRIDGE_TITLE = "Rand Paul presidential campaign, 2016"


@dataclass(frozen=True)
class TwoHop:
    store: Path
    question: str
    answer: str
