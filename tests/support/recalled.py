"""What a recall returned, as the tests compare it."""

from __future__ import annotations

from typing import Any


def ids(result: Any) -> list[str]:
    """The ids of the claims a :class:`~memory_core.recall.results.RecallResult` holds, in order."""
    return [c.memory_id for c in result.claims]
