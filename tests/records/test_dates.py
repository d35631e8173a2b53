"""Dates of facts: checked against the calendar, compared as the spans they name."""

from __future__ import annotations

import pytest

from hopgraph.records.dates import check_date, check_interval, readable, span, within


@pytest.mark.parametrize(("text", "why"), [
    ("2025-13-45", "has no month 13"), ("2025-02-30", "is not a day of the calendar"),
    ("2023-02-29", "is not a day of the calendar"), ("garbage", "is not a date"), ("25-01-01", "is not a date"),
    ("2025-1-5", "is not a date"), ("", "is not a date"), ("0000-01-01", "has no year 0"), ("0000", "has no year 0"),
])
def test_a_date_that_is_not_one_says_why(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_date(text)


@pytest.mark.parametrize("text", ["2024", "2024-02", "2024-02-29", "1999-12-31", "0001-01-01", "9999-12-31"])
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
])
def test_within_compares_spans(day: str, start: str | None, until: str | None, holds: bool) -> None:
    assert within(day, start, until) is holds


def test_span_of_a_month_and_a_year() -> None:
    assert [str(d) for d in span("2024-02")] == ["2024-02-01", "2024-02-29"]
    assert [str(d) for d in span("2023")] == ["2023-01-01", "2023-12-31"]
    assert [str(d) for d in span("0001")] == ["0001-01-01", "0001-12-31"]


@pytest.mark.parametrize(("day", "start", "until"), [
    ("garbage", None, None), ("2025-02-30", "2024", None), ("0000-01-01", None, "2024"),
    ("2024-06-15", "Q3 2024", None), ("2024-06-15", None, "0000-01-01"),
])
def test_a_date_no_calendar_holds_is_an_error_never_an_open_end(day: str, start: str | None,
                                                                until: str | None) -> None:
    with pytest.raises(ValueError):
        within(day, start, until)


def test_readable_keeps_calendar_dates_and_drops_the_rest() -> None:
    assert [readable(t) for t in ("2024-06", "0000-01-01", "2024-13-45", "soon", "", None)] == [
        "2024-06", None, None, None, None, None]
