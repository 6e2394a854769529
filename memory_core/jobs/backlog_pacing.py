"""Backfilled sources queue behind live captures: their jobs are due one after another, paced
at half the daily budget, after every job already waiting.

A live capture is due when it is made; a backfilled source is made due at a time of its own,
:func:`spacing_seconds` after the one before it, starting after the latest job already
pending. The worker takes due live captures first, then due jobs in order of that time
(memory_core.jobs.lifecycle), so a live turn waits for at most the backlog job being
attempted, never for the thousands behind it (nor for those that came due while a day's
budget was spent), and the backlog leaves the other half of each day's budget to live
captures. No schema change: the backlog is ordinary pending jobs with later due times, told
apart by how long after they were said they are due (:data:`IS_BACKLOG`).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_core.clock import is_timestamp
from memory_core.store.engines.dbapi import DbConn

BACKLOG_SHARE = 0.5  # of the daily model calls a backlog may use
# A source not yet tried and due this long after it was said is backlog: a backfilled
# session's (dated when it happened, due from the run on). A live capture is due when it is
# made; once an attempt failed (however late its first attempt came: a worker that was down,
# a spent budget) its retry counts from the failure, so any source that failed counts as live.
BACKLOG_AFTER_SECONDS = 86_400.0
# SQL: 1 for a backlog source, 0 for a live one. The worker takes due live captures first, so
# backlog jobs that came due while a day's budget was spent do not run ahead of the live
# captures made meanwhile once it resets (memory_core.jobs.lifecycle.DUE_ORDER).
IS_BACKLOG = (
    f"CASE WHEN consecutive_failures = 0 AND next_due_at - created_at > {BACKLOG_AFTER_SECONDS:.0f} THEN 1 ELSE 0 END"
)


def spacing_seconds(calls_per_day: int) -> float:
    """Seconds between two backlog jobs at :data:`BACKLOG_SHARE` of ``calls_per_day``."""
    per_day = max(1.0, calls_per_day * BACKLOG_SHARE)
    return 86_400.0 / per_day


def backlog_days(sources: int, calls_per_day: int) -> float:
    """Days the backlog of ``sources`` (one model call each) takes at that pace."""
    return sources * spacing_seconds(calls_per_day) / 86_400.0


def paced_due_times(start: float, count: int, spacing: float) -> list[float]:
    """``count`` due times from ``start``, ``spacing`` apart."""
    return [start + i * spacing for i in range(count)]


def backlog_start(conn: DbConn, now: float, spacing: float) -> float:
    """When the next backlog job may be due: ``now``, or one spacing after the latest
    pending job (a backfill run again continues the queue it left)."""
    (value,) = conn.execute("SELECT MAX(next_due_at) FROM sources WHERE state = 'pending'").fetchone()
    if not is_timestamp(value) or value < now:
        return now  # none pending, or a damaged due time (text, NaN): no time at all
    return float(value) + spacing


def make_due(conn: DbConn, source_ids: Sequence[str], times: Sequence[float]) -> None:
    """Set the due time of each new, still pending source (call in the capture's transaction)."""
    for source_id, due in zip(source_ids, times, strict=True):
        conn.execute("UPDATE sources SET next_due_at = ? WHERE id = ? AND state = 'pending'", (due, source_id))


def scheduled_backlog(conn: DbConn, now: float) -> tuple[int, float | None]:
    """Pending sources not yet due (a backfill's paced backlog) and when the last one is due."""
    count, last = conn.execute(
        "SELECT COUNT(*), MAX(next_due_at) FROM sources WHERE state = 'pending' AND next_due_at > ?", (now,)
    ).fetchone()
    return int(count), (float(last) if is_timestamp(last) else None)
