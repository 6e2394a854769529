"""Forced attempts (`memevo evolve`, the page's Evolve now): which source to run, the
request recorded on its row until the worker takes it, and how the attempt ended.

Like every query that picks sources (memory_core.jobs.lifecycle), these read only the
current person's sources: another person's source is only their own worker's to run.
"""

from __future__ import annotations

from memory_core.errors import NotFoundError, UsageError
from memory_core.jobs.lifecycle import own_source
from memory_core.records import JobState, Source
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import source_owner_clause


def pick_forced_source(conn: DbConn, source_id: str | None) -> str | None:
    """The source a forced evolve should run, among the current person's own: the given one
    (also while an attempt on it is running, which the caller then waits for), else the one
    whose forced attempt is already queued or running, else the newest eligible. Another
    person's source is as absent as no source: only their own worker runs it."""
    if source_id is not None:
        source = own_source(conn, source_id)
        if source is None:
            raise NotFoundError(f"no source with id {source_id}; see `memevo status`")
        if source.state in (JobState.DONE, JobState.RETIRED):
            raise UsageError(
                f"source {source_id} is {source.state.value}; completed or retired sources "
                "are never run again (capture new evidence instead)"
            )
        return source.id
    mine, owners = source_owner_clause(conn)
    row = (
        conn.execute(
            f"SELECT id FROM sources WHERE forced_at IS NOT NULL AND state IN ('pending', 'paused', 'leased'){mine} "
            "ORDER BY forced_at DESC, id DESC LIMIT 1",
            owners,
        ).fetchone()
        or conn.execute(
            f"SELECT id FROM sources WHERE state IN ('pending', 'paused'){mine} "
            "ORDER BY created_at DESC, source_type = 'progress', id DESC LIMIT 1",
            owners,
        ).fetchone()
    )
    return None if row is None else str(row[0])


def request_forced(conn: DbConn, source_id: str, now: float) -> bool:
    """Record that a forced attempt is wanted (call inside a write transaction). False when
    one is already queued or running for this source (or it is not the current person's):
    the caller reuses it and queues nothing."""
    mine, owners = source_owner_clause(conn)
    cursor = conn.execute(
        f"UPDATE sources SET forced_at=? WHERE id=? AND state IN ('pending', 'paused') AND forced_at IS NULL{mine}",
        (now, source_id, *owners),
    )
    return cursor.rowcount == 1


def clear_forced(conn: DbConn, source_id: str) -> None:
    """Withdraw a forced request that could not be queued (call inside a write transaction)."""
    conn.execute("UPDATE sources SET forced_at=NULL WHERE id=? AND state IN ('pending', 'paused')", (source_id,))


def forced_source_ids(conn: DbConn, limit: int = 50) -> list[str]:
    """The current person's sources whose forced attempt is queued but not running (recovery
    re-nudges them, so a lost nudge cannot leave a request outstanding for ever)."""
    mine, owners = source_owner_clause(conn)
    return [
        row[0]
        for row in conn.execute(
            f"SELECT id FROM sources WHERE forced_at IS NOT NULL AND state IN ('pending', 'paused'){mine} "
            "ORDER BY forced_at, id LIMIT ?",
            (*owners, limit),
        )
    ]


def attempt_outcome(before: Source, after: Source) -> dict[str, object]:
    """How a forced attempt ended, from the job row before it was queued and after it ran:
    ``done``, ``paused``, ``retired``, ``failed`` or ``released`` (back to pending with no
    new failure: a stopping worker handed the attempt back uncounted)."""
    endings = {JobState.DONE: "done", JobState.RETIRED: "retired"}
    status = endings.get(after.state)
    if status is None:
        if after.last_failure_at == before.last_failure_at:
            status = "released"
        else:
            status = "paused" if after.state == JobState.PAUSED else "failed"
    failed = status in ("failed", "paused")
    return {
        "source_id": after.id,
        "status": status,
        "error_code": after.last_error_code.value if after.last_error_code and failed else None,
        "error_reason": after.last_error_reason if failed else None,
        "consecutive_failures": after.consecutive_failures,
        "next_due_at": after.next_due_at if status == "failed" else None,
    }
