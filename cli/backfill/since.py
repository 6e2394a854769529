"""``--since``: a date (``2026-09-01``), a time (ISO 8601) or an age in days (``30d``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from memory_core.errors import UsageError

DEFAULT_DAYS = 90
_AGE = re.compile(r"^\s*(\d{1,5})\s*d\s*$", re.IGNORECASE)


def parse_since(value: str | None, now: float) -> float:
    """Seconds since the epoch of ``value`` (``None``: :data:`DEFAULT_DAYS` days before ``now``);
    a date without a zone is UTC midnight."""
    if value is None or not value.strip():
        return now - DEFAULT_DAYS * 86_400.0
    age = _AGE.match(value)
    if age:
        return now - int(age.group(1)) * 86_400.0
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since must be a date (2026-09-01) or a number of days (30d), not {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
