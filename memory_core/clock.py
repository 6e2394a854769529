"""The one clock seam. Every caller that needs "now" reads it here, so tests can freeze it."""

from __future__ import annotations

import math
import time

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import TypeGuard


SECONDS_PER_DAY = 86_400.0
# The last second of year 9999: the latest time ``iso`` can print on every platform.
MAX_TIMESTAMP = 253_402_300_799.0


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


def is_timestamp(value: object) -> TypeGuard[float]:
    """True for a number ``iso`` can print: finite, from 1970 up to the year 9999."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and 0 <= value <= MAX_TIMESTAMP
