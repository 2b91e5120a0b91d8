"""When to try a request again, and how long to wait first.

Why these rules: a connection error, a 429 or a 5xx is often transient, so it is retried a
bounded number of times; other failures (404, a refused address, a slow read, a response
that breaks HTTP such as a 200 KB header) are not going to change in a second. The wait
is exponential with jitter so many fetchers do not retry in step, unless the server said
how long (Retry-After), which is obeyed when it is within ``max_retry_after`` and
otherwise ends the fetch, since waiting longer than that would stall a run on one source.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({429}) | frozenset(range(500, 600))
BACKOFF_BASE = 0.5


def backoff(attempt: int, *, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry number ``attempt + 1``: base·2ⁿ plus up to 50 % jitter."""
    step: float = BACKOFF_BASE * 2**attempt
    return step + (rng or random).uniform(0, step / 2)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
