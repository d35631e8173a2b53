"""Dates of facts: checked against the calendar, compared as the spans they name."""

from __future__ import annotations

import pytest

from hopgraph.records.dates import check_date, check_interval, span, within


@pytest.mark.parametrize(("text", "why"), [
    ("2025-13-45", "has no month 13"), ("2025-02-30", "is not a day of the calendar"),
    ("2023-02-29", "is not a day of the calendar"), ("garbage", "is not a date"), ("25-01-01", "is not a date"),
    ("2025-1-5", "is not a date"), ("", "is not a date"),
])
def test_a_date_that_is_not_one_says_why(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_date(text)


@pytest.mark.parametrize("text", ["2024", "2024-02", "2024-02-29", "1999-12-31"])
def test_calendar_dates_pass(text: str) -> None:
    assert check_date(text) == text


def test_a_reversed_interval_is_refused_and_a_partial_one_compares_as_spans() -> None:
    with pytest.raises(ValueError, match="2025-06-30/2024-01-01 ends before it starts"):
        check_interval("2025-06-30", "2024-01-01")
    assert check_interval("2024-03", "2024") == ("2024-03", "2024")  # March 2024 lies inside 2024
    assert check_interval(None, "2022") == (None, "2022")


@pytest.mark.parametrize(("day", "start", "until", "holds"), [
    ("2024-03-01", None, "2024", True),  # until 2024 runs to its end (as strings it did not)
    ("2025-01-01", None, "2024", False),
    ("2024", "2024-06", None, True),  # a year overlaps a fact that began inside it
    ("2023-12-31", "2024", None, False),
    ("2024-06-15", "2024-06", "2024-06", True),
    ("2024-06-15", "Q3 2024", None, True),  # a stored date that is no calendar date tells no time
])
def test_within_compares_spans(day: str, start: str | None, until: str | None, holds: bool) -> None:
    assert within(day, start, until) is holds


def test_span_of_a_month_and_a_year() -> None:
    assert [str(d) for d in span("2024-02")] == ["2024-02-01", "2024-02-29"]  # type: ignore[union-attr]
    assert [str(d) for d in span("2023")] == ["2023-01-01", "2023-12-31"]  # type: ignore[union-attr]
    assert span("not a date") is None
