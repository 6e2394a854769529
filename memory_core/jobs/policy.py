"""Pure retry and lease policy. No I/O; every function takes ``now``."""

from __future__ import annotations

# Each actual failure waits 1, 5, 15, then 60 minutes (60 from then on).
RETRY_DELAYS_SECONDS: tuple[float, ...] = (60.0, 300.0, 900.0, 3600.0)
# Five consecutive failures pause a source until someone forces it or it is fixed.
FAILURE_CAP = 5


def retry_delay(consecutive_failures: int) -> float:
    """Delay after the ``consecutive_failures``-th failure in a row (1-based)."""
    if consecutive_failures < 1:
        return 0.0
    index = min(consecutive_failures, len(RETRY_DELAYS_SECONDS)) - 1
    return RETRY_DELAYS_SECONDS[index]


# A server's Retry-After is honoured up to an hour; beyond that the usual backoff rules.
RETRY_AFTER_MAX_SECONDS = 3600.0


def next_retry_at(consecutive_failures: int, now: float, retry_after: float | None = None) -> float:
    """When a source that has just failed for the n-th time becomes due again: the backoff,
    or later when the server asked to wait longer (``retry_after`` seconds, capped)."""
    delay = retry_delay(consecutive_failures)
    if retry_after is not None and retry_after > 0:
        delay = max(delay, min(retry_after, RETRY_AFTER_MAX_SECONDS))
    return now + delay


def should_pause(consecutive_failures: int) -> bool:
    return consecutive_failures >= FAILURE_CAP


def lease_expires_at(now: float, lease_seconds: float) -> float:
    """A lease covers the attempt budget plus grace (150 s by default)."""
    return now + lease_seconds
