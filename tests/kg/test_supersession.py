"""The supersession rule as a table: which of two facts of a functional relation ends, and when."""

from __future__ import annotations

import pytest

from hopgraph.kg.supersession import functional_set, stated_on, supersede
from hopgraph.records.knowledge import Relation, Source

HOSUR, RANIPET, CHENNAI, FOUNDRY = 2, 3, 4, 1


def fact(rid: int, target: int, *dates: str | None, relation: str = "LOCATED_IN", source: int = FOUNDRY) -> Relation:
    """A relation stated once per date (chunk id = 10 × relation id + statement)."""
    sources = [Source(10 * rid + i, rid, date) for i, date in enumerate(dates or (None,))]
    return Relation(rid, source, relation, target, sources=sources,
                    valid_from=None if None in dates or not dates else min(dates))


def ended(relations: list[Relation]) -> dict[int, tuple[int | None, str | None]]:
    """relation id → (superseded by, valid until), for the superseded ones."""
    return {r.id: (r.superseded_by, r.valid_until) for r in supersede(relations, {"LOCATED_IN"})
            if r.superseded_by is not None}


@pytest.mark.parametrize(("relations", "expected"), [
    # a later statement of another place ends the earlier one on its date
    ([fact(1, HOSUR, "2019"), fact(2, RANIPET, "2025-03-01")], {1: (2, "2025-03-01")}),
    # the older report indexed late (a higher id) still loses to the newer date
    ([fact(1, RANIPET, "2025-03-01"), fact(2, HOSUR, "2019")], {2: (1, "2025-03-01")}),
    # an undated fact is older than any dated news
    ([fact(1, HOSUR), fact(2, RANIPET, "2025")], {1: (2, "2025")}),
    # same date, or both undated: no order, both stand
    ([fact(1, HOSUR, "2025-03-01"), fact(2, RANIPET, "2025-03-01")], {}),
    ([fact(1, HOSUR), fact(2, RANIPET)], {}),
    # a year and a day in it: the year starts first, so the day is newer
    ([fact(1, HOSUR, "2025"), fact(2, RANIPET, "2025-06-01")], {1: (2, "2025-06-01")}),
    # restated later: the fact's date is its latest statement, so moving back wins
    ([fact(1, HOSUR, "2019", "2026"), fact(2, RANIPET, "2022")], {2: (1, "2026")}),
    # three moves: each ends where the next begins
    ([fact(1, HOSUR, "2019"), fact(2, RANIPET, "2022"), fact(3, CHENNAI, "2025")],
     {1: (2, "2022"), 2: (3, "2025")}),
    # an end already stated earlier than the news is kept
    ([Relation(1, FOUNDRY, "LOCATED_IN", HOSUR, sources=[Source(10, 1, "2019", "2021")], valid_from="2019",
               valid_until="2021"), fact(2, RANIPET, "2025")], {1: (2, "2021")}),
    # an end stated later than the news is cut to the news
    ([Relation(1, FOUNDRY, "LOCATED_IN", HOSUR, sources=[Source(10, 1, "2019", "2030")], valid_from="2019",
               valid_until="2030"), fact(2, RANIPET, "2025")], {1: (2, "2025")}),
    # an undated fact that arrives late is still the older one
    ([fact(1, RANIPET, "2025"), fact(2, HOSUR)], {2: (1, "2025")}),
    # a tie, then news: both tied facts end on the news
    ([fact(1, HOSUR, "2019"), fact(2, RANIPET, "2019"), fact(3, CHENNAI, "2025")],
     {1: (3, "2025"), 2: (3, "2025")}),
    # equal facts restated: twice in one relation (two documents, one date) is one fact, news ends it once
    ([fact(1, HOSUR, "2019", "2019"), fact(2, RANIPET, "2025")], {1: (2, "2025")}),
    # equal facts restated as two relations (same object): no news, whatever their dates
    ([fact(1, HOSUR, "2019"), fact(2, HOSUR, "2025")], {}),
    ([fact(1, HOSUR, "2025"), fact(2, HOSUR, "2025")], {}),
    # ... and beside a real move, the restatement never ends its own earlier statement
    ([fact(1, RANIPET, "2018"), fact(2, HOSUR, "2019"), fact(3, HOSUR, "2025")], {1: (2, "2019")}),
])
def test_the_later_statement_supersedes(relations, expected) -> None:
    assert ended(relations) == expected


def test_other_subjects_and_relations_that_are_not_functional_are_untouched() -> None:
    relations = [fact(1, HOSUR, "2019"), fact(2, RANIPET, "2025", source=9),  # two subjects: no conflict
                 fact(3, HOSUR, "2019", relation="SUPPLIES"), fact(4, RANIPET, "2025", relation="SUPPLIES")]
    assert ended(relations) == {}


def test_supersede_returns_new_relations_and_leaves_its_input_alone() -> None:
    old = fact(1, HOSUR, "2019")
    result = supersede([old, fact(2, RANIPET, "2025")], {"LOCATED_IN"})
    assert old.superseded_by is None and result[0].superseded_by == 2


def test_a_superseded_fact_holds_before_its_end_not_after_and_not_now() -> None:
    older = supersede([fact(1, HOSUR, "2019"), fact(2, RANIPET, "2025-03-01")], {"LOCATED_IN"})[0]
    assert older.holds_on("2024-12-31") and older.holds_on("2025-03-01")
    assert not older.holds_on("2025-03-02") and not older.holds_on(None)


def test_the_setting_and_the_dates() -> None:
    assert functional_set(" located_in, REPORTS_TO ,") == {"LOCATED_IN", "REPORTS_TO"}
    assert stated_on(fact(1, HOSUR, "2019", "2026-01", "2024")) == "2026-01"
    assert stated_on(fact(1, HOSUR)) is None
