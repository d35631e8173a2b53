"""The dates facts carry: ISO calendar dates to a year, a month or a day ("2024", "2024-03",
"2024-03-01"), checked against the calendar, and compared as the spans they name — "until 2024"
runs to the end of 2024, so it holds on 2024-03-01 (as strings, "2024-03-01" > "2024" said no).

Every date is checked where it enters: `--as-of` (InputError), an imported triple (a counted skip),
a stored fact's date (kg/build.py: unreadable ones are undated, with a warning). What is compared
here has been checked, so a date no calendar holds is an error, never an open end.
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from functools import lru_cache

_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def today() -> str:
    """The day queries without a date ask about (tests replace it to fix the clock)."""
    return date.today().isoformat()


def check_date(text: str) -> str:
    """`text` if it is a date of the calendar to a year, month or day; else ValueError saying why."""
    match = _DATE.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")
    year, month, day = (int(part) if part else None for part in match.groups())
    if year < 1:  # type: ignore[operator]  # the calendar (and Python's date) starts at year 1
        raise ValueError(f"{text!r} has no year 0 (the calendar starts at 0001)")
    if month is not None and not 1 <= month <= 12:
        raise ValueError(f"{text!r} has no month {month}")
    if day is not None and month is not None and not 1 <= day <= calendar.monthrange(year, month)[1]:  # type: ignore[arg-type]
        raise ValueError(f"{text!r} is not a day of the calendar")
    return text


def readable(text: str | None) -> str | None:
    """`text` if it is a calendar date, else None: a stored date no calendar holds tells no time."""
    if not text:
        return None
    try:
        return check_date(text)
    except ValueError:
        return None


@lru_cache(maxsize=4096)  # a graph has few distinct dates and every query compares them all
def span(text: str) -> tuple[date, date]:
    """The first and last day a date names ("2024" → 2024-01-01, 2024-12-31); ValueError for what
    is no calendar date (it should have been refused or undated where it entered)."""
    check_date(text)
    year, month, day = (int(p) if p else None for p in _DATE.match(text).groups())  # type: ignore[union-attr]
    first = date(year, month or 1, day or 1)  # type: ignore[arg-type]
    last_month = month or 12
    return first, date(year, last_month, day or calendar.monthrange(year, last_month)[1])  # type: ignore[arg-type]


def check_interval(start: str | None, until: str | None) -> tuple[str | None, str | None]:
    """Both ends checked, and the start not after the end (ValueError saying which)."""
    start, until = (check_date(start) if start else None), (check_date(until) if until else None)
    if start and until and span(start)[0] > span(until)[1]:
        raise ValueError(f"{start}/{until} ends before it starts")
    return start, until


def within(day: str, start: str | None, until: str | None) -> bool:
    """Whether the date `day` can fall inside [start, until]; an open end (None) is unbounded. Every
    date given must be a calendar date: ValueError otherwise (bad dates are refused before)."""
    when = span(day)
    return (not start or span(start)[0] <= when[1]) and (not until or when[0] <= span(until)[1])
