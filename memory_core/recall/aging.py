"""Gradual aging, computed when recall reads: nothing is ever rewritten or deleted by time.

The clock of a claim is ``Memory.clock_at``: the latest of its last content change, its last
confirmation and its current evidence date. Freshness decays from 1 towards a floor with a per-kind half-life of
the decaying part; past its dormancy horizon an unpinned claim is no longer offered
automatically, though an explicit lookup that asks for dormant claims still finds it.
Pinned claims stay at freshness 1 and never go dormant. Age is not evidence of falsity.
"""

from __future__ import annotations

from typing import NamedTuple

SECONDS_PER_DAY = 86_400.0
# Below this freshness the digest labels a claim as aging.
AGING_WARNING_BELOW = 0.85


# Fields given as types, not annotations: under ``from __future__ import annotations`` a
# ``NamedTuple``'s annotations are strings that ``typing`` compiles one by one, on every
# start of the per-turn hook (docs/hooks.md, "Cost").
class AgingPolicy(
    NamedTuple("AgingPolicy", [("half_life_days", float), ("floor", float), ("dormant_after_days", float)])
):
    """How one kind of claim ages."""

    __slots__ = ()


POLICIES: dict[str, AgingPolicy] = {
    # Project states go stale silently and fast; preferences change slowly.
    "project_state": AgingPolicy(half_life_days=3, floor=0.50, dormant_after_days=7),
    "fact": AgingPolicy(half_life_days=60, floor=0.50, dormant_after_days=180),
    "decision": AgingPolicy(half_life_days=120, floor=0.60, dormant_after_days=365),
    "preference": AgingPolicy(half_life_days=240, floor=0.70, dormant_after_days=730),
}


def policy_for(kind: str) -> AgingPolicy:
    """The aging policy of a memory kind (a :class:`ValueError` for an unknown kind)."""
    try:
        return POLICIES[kind]
    except KeyError:
        raise ValueError(f"no aging policy for kind {kind!r}") from None


def age_days(clock_at: float, now: float) -> float:
    """Days since the clock; a clock in the future (clock skew) counts as age zero."""
    return max(0.0, (now - clock_at) / SECONDS_PER_DAY)


def freshness(kind: str, clock_at: float, now: float, *, pinned: bool = False) -> float:
    """``floor + (1 - floor) * 2 ** (-age / half_life)``; exactly 1 for a pinned claim."""
    if pinned:
        return 1.0
    policy = policy_for(kind)
    decay = 2.0 ** (-age_days(clock_at, now) / policy.half_life_days)
    return policy.floor + (1.0 - policy.floor) * decay


def is_dormant(kind: str, clock_at: float, now: float, *, pinned: bool = False) -> bool:
    """True once an unpinned claim is older than its kind's horizon (the horizon itself is still awake)."""
    if pinned:
        return False
    return age_days(clock_at, now) > policy_for(kind).dormant_after_days
