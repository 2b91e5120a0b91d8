"""``--since`` / ``--until``: a window of publication dates for a run's search results.

Providers take a window only as "the past day/week/month/year" (``TimeRange``), so a
``since`` is passed as the smallest such window that still holds it (``window_since``);
the exact dates are then applied to each result's ``published_date`` where it has one
(``published_span`` reads ISO 8601, RFC 2822 and bare ``YYYY-MM-DD`` / ``YYYY-MM`` /
``YYYY`` forms; a month or a year is kept when any of it is in the window). A result
without a date, or with one that cannot be read, is kept: most pages carry none, and
dropping them would empty most runs. ``until`` is applied to
results only; no provider takes an end date.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime

from assay.gather.search.base import TimeRange

_WINDOWS: tuple[tuple[TimeRange, timedelta], ...] = (
    ("day", timedelta(days=1)),
    ("week", timedelta(days=7)),
    ("month", timedelta(days=31)),
    ("year", timedelta(days=366)),
)
_PARTIAL = re.compile(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$")


def window_since(since: date, today: date) -> TimeRange | None:
    """The smallest provider window that holds every day from ``since`` to ``today``."""
    for name, span in _WINDOWS:
        if since >= today - span:
            return name
    return None


def published_span(text: str | None) -> tuple[date, date] | None:
    """The first and last day a provider's ``published_date`` may mean (``2024-05`` is
    all of May), or None when it names no date."""
    if not text:
        return None
    value = text.strip()
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        pass
    else:
        day = stamp.astimezone(UTC).date() if stamp.tzinfo else stamp.date()
        return day, day
    match = _PARTIAL.match(value)
    if match:
        return _partial_span(*match.groups())
    try:
        day = parsedate_to_datetime(value).astimezone(UTC).date()
    except (TypeError, ValueError, IndexError):
        return None
    return day, day


def _partial_span(year: str, month: str | None, day: str | None) -> tuple[date, date] | None:
    try:
        if day is not None and month is not None:
            exact = date(int(year), int(month), int(day))
            return exact, exact
        if month is not None:
            first = date(int(year), int(month), 1)
            following = date(first.year + first.month // 12, first.month % 12 + 1, 1)
            return first, following - timedelta(days=1)
        return date(int(year), 1, 1), date(int(year), 12, 31)
    except ValueError:
        return None


def outside(span: tuple[date, date], since: date | None, until: date | None) -> bool:
    """Whether a result published within ``span`` falls wholly outside the window."""
    first, last = span
    return (since is not None and last < since) or (until is not None and first > until)
