"""The one clock seam. Every caller that needs "now" reads it here, so tests can freeze it."""

from __future__ import annotations

import time

SECONDS_PER_DAY = 86_400.0


def now() -> float:
    """Current wall-clock time as a UNIX timestamp in seconds."""
    return time.time()


def day_key(at: float) -> str:
    """The UTC calendar day of a timestamp (used for daily budgets)."""
    return time.strftime("%Y-%m-%d", time.gmtime(at))


def next_day_start(at: float) -> float:
    """The UTC midnight after ``at``."""
    return (int(at // SECONDS_PER_DAY) + 1) * SECONDS_PER_DAY


def iso(at: float | None) -> str | None:
    """A timestamp as ISO-8601 UTC text for people (``None`` stays ``None``)."""
    if at is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
