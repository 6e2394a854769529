"""Clock skew between a worker and the PostgreSQL server its leases live on.

Lease expiry (and "a source is not older than the claim it replaces") compares times that
each worker took from its own clock. Two machines whose clocks disagree by more than the
lease grace could take each other's live leases, so a worker measures its clock against the
server's (:func:`measure_skew`), warns above :data:`WARN_SECONDS` and refuses to lease above
half the lease grace (:func:`skew_verdict`, a pure policy taking both times). Doctor shows
the same measurement. On SQLite every process shares one machine's clock: nothing to measure.
"""

from __future__ import annotations

from typing import NamedTuple

from memory_core import clock
from memory_core.store.engines.dbapi import DbConn, is_postgres

WARN_SECONDS = 2.0
# Below this, refusing would only chase measurement noise (a lease grace of 0 is allowed).
MIN_REFUSE_SECONDS = 0.5
OK, WARN, REFUSE = "ok", "warn", "refuse"


class SkewVerdict(NamedTuple):
    """``skew``: the server's clock minus this machine's, in seconds (positive: this
    machine is behind); ``action``: :data:`OK`, :data:`WARN` or :data:`REFUSE`;
    ``message``: one line for the worker log (empty when ok)."""

    skew: float
    action: str
    message: str


def refuse_above(lease_grace_seconds: float) -> float:
    """The skew above which a worker must not lease: half the lease grace (at least
    :data:`MIN_REFUSE_SECONDS`)."""
    return max(lease_grace_seconds / 2, MIN_REFUSE_SECONDS)


def skew_verdict(local_now: float, server_now: float, lease_grace_seconds: float) -> SkewVerdict:
    """What a worker does about its clock, from its own time and the server's taken at the
    same moment."""
    skew = server_now - local_now
    size = abs(skew)
    direction = "behind" if skew > 0 else "ahead of"
    limit = refuse_above(lease_grace_seconds)
    if size > limit:
        return SkewVerdict(
            skew,
            REFUSE,
            f"this machine's clock is {size:.1f} s {direction} the database server's, more than half the lease "
            f"grace ({limit:.1f} s): leasing nothing until it is fixed; synchronise the clock (NTP, e.g. "
            "`timedatectl set-ntp true`)",
        )
    if size > WARN_SECONDS:
        return SkewVerdict(
            skew,
            WARN,
            f"this machine's clock is {size:.1f} s {direction} the database server's; leases still work below "
            f"{limit:.1f} s, but synchronise the clock (NTP)",
        )
    return SkewVerdict(skew, OK, "")


def measure_skew(conn: DbConn) -> float | None:
    """The PostgreSQL server's clock minus this machine's (:func:`memory_core.clock.now`), in
    seconds, read halfway through one round trip; ``None`` on SQLite (one machine, one clock)."""
    if not is_postgres(conn):
        return None
    before = clock.now()
    row = conn.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())").fetchone()
    after = clock.now()
    return float(row[0]) - (before + after) / 2


def check_clock(conn: DbConn, lease_grace_seconds: float) -> SkewVerdict | None:
    """:func:`measure_skew` judged by :func:`skew_verdict`; ``None`` on SQLite."""
    skew = measure_skew(conn)
    if skew is None:
        return None
    local = clock.now()
    return skew_verdict(local, local + skew, lease_grace_seconds)
