"""Lease, complete, fail, release and recover jobs. Every change is a conditional UPDATE.

The lease owner and attempt number travel with a :class:`Lease`; completing or failing
with a lease that no longer matches the row changes nothing, so a late answer from an
expired lease can never overwrite the work of the job's next owner.

Every query that picks sources reads only the current person's (``source_owner_clause``): on a
team store each person's worker consolidates only that person's sources, with that person's
model, and the administrator's login, which row-level security does not bind, must not pick
a member's.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_core.jobs import policy
from memory_core.jobs.backlog_pacing import IS_BACKLOG
from memory_core.jobs.progress_order import earlier_progress_of_same_state
from memory_core.records import ErrorCode, JobState, Reason, Source, is_reason_code
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.engines.dialect import null_safe_equal, skip_locked
from memory_core.store.schema.columns import SOURCE_COLUMNS
from memory_core.store.schema.owners import source_owner_clause
from memory_core.store.tables.generations import current_generation
from memory_core.store.tables.sources import get_source, source_from_row


@dataclass(frozen=True)
class Lease:
    """Proof of a lease: who holds it, for which attempt, at which origin generation."""

    source: Source
    owner: str
    attempt: int
    generation: int
    forced: bool = False


@dataclass(frozen=True)
class FailureOutcome:
    source_id: str
    consecutive_failures: int
    state: JobState
    next_due_at: float


def _eligible(source: Source, now: float, forced: bool) -> bool:
    if forced:
        return source.state in (JobState.PENDING, JobState.PAUSED)
    return (
        source.state == JobState.PENDING
        and source.next_due_at <= now
        and source.consecutive_failures < policy.FAILURE_CAP
    )


# Due work in the order it should run: live captures before a backfill's backlog
# (memory_core.jobs.backlog_pacing), then earliest retry time, then oldest; within one turn the
# user's statement before the progress source (they share a capture time), then the id.
DUE_ORDER = f"{IS_BACKLOG}, next_due_at, created_at, source_type = 'progress', id"


def waits_for_statement(conn: DbConn, source: Source) -> bool:
    """True while the user statement of a progress source's turn (same agent session and
    origin, captured in the same transaction, so at the same time) still waits to be applied:
    the statement goes first, so the user's words keep their authority over what the tools
    showed. A statement whose last attempt failed no longer blocks: its answers may keep
    failing for hours before it pauses, and applied after the progress source, the user's
    words still come last."""
    if source.source_type != "progress":
        return False
    marker = "|progress|"
    cut = source.dedupe_key.find(marker)
    if cut < 0:
        return False
    prefix = source.dedupe_key[: cut + 1] + "user_statement|"
    mine, owners = source_owner_clause(conn)
    row = conn.execute(
        "SELECT 1 FROM sources WHERE dedupe_key >= ? AND dedupe_key < ? AND source_type='user_statement' "
        f"AND origin=? AND created_at=? AND state IN ('pending', 'leased') AND consecutive_failures=0{mine} LIMIT 1",
        (prefix, prefix + "\U0010ffff", source.origin, source.created_at, *owners),
    ).fetchone()
    return row is not None


def must_wait(conn: DbConn, source: Source) -> bool:
    """True while something captured before ``source`` goes first: its turn's user statement
    (:func:`waits_for_statement`) or an earlier progress source of the same project state
    (:func:`~memory_core.jobs.progress_order.earlier_progress_of_same_state`)."""
    return waits_for_statement(conn, source) or earlier_progress_of_same_state(conn, source) is not None


def waiting_until(conn: DbConn, source: Source, now: float) -> float | None:
    """When what ``source`` waits for can next be attempted, if that is later than ``now``:
    an earlier progress source of its state waiting out a failure's backoff. ``None`` when
    it may be through at any moment (leased, due, or nothing to wait for)."""
    blocker = earlier_progress_of_same_state(conn, source)
    if blocker is None or blocker.state != JobState.PENDING or blocker.next_due_at <= now:
        return None
    return blocker.next_due_at


def own_source(conn: DbConn, source_id: str) -> Source | None:
    """The source ``source_id`` when it is the current person's, else ``None``: on a team
    store the administrator's login is not bound by row-level security, and a member's
    source must never reach the administrator's worker or model (docs/team.md)."""
    mine, owners = source_owner_clause(conn)
    row = conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE id=?{mine}", (source_id, *owners)).fetchone()
    return None if row is None else source_from_row(row)


def _next_due_source(conn: DbConn, now: float) -> Source | None:
    # On PostgreSQL the candidates are locked, and rows another leasing transaction holds
    # are skipped, so workers on several machines never race for one job.
    # A worker consolidates only its own person's sources (a team store: its login's).
    mine, owners = source_owner_clause(conn)
    rows = conn.execute(
        f"SELECT {SOURCE_COLUMNS} FROM sources WHERE state='pending' AND next_due_at<=? "
        f"AND consecutive_failures<?{mine} ORDER BY {DUE_ORDER} LIMIT 64{skip_locked(conn)}",
        (now, policy.FAILURE_CAP, *owners),
    ).fetchall()
    for row in rows:
        source = source_from_row(row)
        if not must_wait(conn, source):
            return source
    return None


def lease_job(
    conn: DbConn,
    *,
    owner: str,
    now: float,
    lease_seconds: float,
    source_id: str | None = None,
    forced: bool = False,
    require_request: bool = False,
) -> Lease | None:
    """Lease one job (call inside ``BEGIN IMMEDIATE``). ``None`` if nothing is eligible.

    Without ``source_id`` the next due source is taken (earliest retry time, then oldest,
    a turn's user statement before its progress source). A progress source is not leased
    while a user statement of its turn or an earlier progress source of the same project
    state waits (:func:`must_wait`). ``forced``
    overrides the due time, the pause and that wait for this one attempt; it never revives
    a completed or retired source and does not reset the failure count. With
    ``require_request`` a forced lease needs an outstanding request (:func:`request_forced`):
    a repeated forced nudge for a request already served is only an ordinary nudge.
    """
    if source_id is None:
        found = _next_due_source(conn, now)
    else:
        found = own_source(conn, source_id)
    if found is None:
        return None
    source = found
    if forced and require_request and source.forced_at is None:
        forced = False
    if not _eligible(source, now, forced):
        return None
    if not forced and must_wait(conn, source):
        return None  # nudged again once what goes first is through
    generation = current_generation(conn, source.origin)
    attempt = source.attempt + 1
    cursor = conn.execute(
        "UPDATE sources SET state='leased', attempt=?, lease_owner=?, lease_expires_at=?, "
        "origin_generation=? WHERE id=? AND state=? AND attempt=?",
        (
            attempt,
            owner,
            policy.lease_expires_at(now, lease_seconds),
            generation,
            source.id,
            source.state.value,
            source.attempt,
        ),
    )
    if cursor.rowcount != 1:
        return None
    leased = get_source(conn, source.id)
    assert leased is not None
    return Lease(leased, owner, attempt, generation, forced)


def holds_lease(conn: DbConn, lease: Lease) -> bool:
    """True while ``lease`` is still the job's current lease."""
    row = conn.execute(
        "SELECT 1 FROM sources WHERE id=? AND state='leased' AND lease_owner=? AND attempt=?",
        (lease.source.id, lease.owner, lease.attempt),
    ).fetchone()
    return row is not None


def complete_job(conn: DbConn, lease: Lease, now: float) -> bool:
    """Mark the job done and reset its failure fields; False if the lease was lost."""
    cursor = conn.execute(
        "UPDATE sources SET state='done', lease_owner=NULL, lease_expires_at=NULL, "
        "consecutive_failures=0, last_error_code=NULL, last_error_reason=NULL, last_failure_at=NULL, "
        "forced_at=NULL, completed_at=? "
        "WHERE id=? AND state='leased' AND lease_owner=? AND attempt=?",
        (now, lease.source.id, lease.owner, lease.attempt),
    )
    return cursor.rowcount == 1


def _record_failure(
    conn: DbConn,
    source_id: str,
    failures_before: int,
    code: ErrorCode,
    now: float,
    where: str,
    params: tuple,
    reason: str | None = None,
    retry_after: float | None = None,
) -> FailureOutcome | None:
    failures = failures_before + 1
    paused = policy.should_pause(failures)
    state = JobState.PAUSED if paused else JobState.PENDING
    due = policy.next_retry_at(failures, now, retry_after)
    if reason is not None and not is_reason_code(reason):
        reason = None  # only allowlisted codes are ever stored
    # The attempt ran, so a forced request it served is over.
    cursor = conn.execute(
        "UPDATE sources SET state=?, consecutive_failures=?, next_due_at=?, lease_owner=NULL, "
        "lease_expires_at=NULL, last_error_code=?, last_error_reason=?, last_failure_at=?, forced_at=NULL "
        "WHERE " + where,
        (state.value, failures, due, ErrorCode(code).value, reason, now, *params),
    )
    if cursor.rowcount != 1:
        return None
    return FailureOutcome(source_id, failures, state, due)


def fail_job(
    conn: DbConn,
    lease: Lease,
    code: ErrorCode,
    now: float,
    *,
    reason: str | None = None,
    retry_after: float | None = None,
) -> FailureOutcome | None:
    """Record one failure with backoff (pausing at the cap); ``None`` if the lease was lost.

    ``reason`` is an allowlisted reason code (:func:`memory_core.records.reason_code`);
    ``retry_after`` (seconds) is how long the server asked to be left alone.
    """
    row = conn.execute(
        "SELECT consecutive_failures FROM sources WHERE id=? AND state='leased' AND lease_owner=? AND attempt=?",
        (lease.source.id, lease.owner, lease.attempt),
    ).fetchone()
    if row is None:
        return None
    return _record_failure(
        conn,
        lease.source.id,
        int(row[0]),
        code,
        now,
        "id=? AND state='leased' AND lease_owner=? AND attempt=?",
        (lease.source.id, lease.owner, lease.attempt),
        reason,
        retry_after,
    )


def release_job(conn: DbConn, lease: Lease) -> bool:
    """Graceful stop: give the job back as pending, not counted as a failure. A forced
    request stays outstanding, so the next worker runs it."""
    cursor = conn.execute(
        "UPDATE sources SET state=?, lease_owner=NULL, lease_expires_at=NULL "
        "WHERE id=? AND state='leased' AND lease_owner=? AND attempt=?",
        (
            JobState.PAUSED.value if policy.should_pause(lease.source.consecutive_failures) else JobState.PENDING.value,
            lease.source.id,
            lease.owner,
            lease.attempt,
        ),
    )
    return cursor.rowcount == 1


def recover_expired_leases(conn: DbConn, now: float) -> list[FailureOutcome]:
    """Expired leases (a crashed or killed worker) become ``interrupted`` failures: the
    current person's only, whose retries go to their own queue (each person's workers
    recover their own sources)."""
    mine, owners = source_owner_clause(conn)
    rows = conn.execute(
        "SELECT id, consecutive_failures, lease_owner, attempt FROM sources "
        f"WHERE state='leased' AND lease_expires_at<=?{mine}",
        (now, *owners),
    ).fetchall()
    outcomes = []
    for source_id, failures, owner, attempt in rows:
        outcome = _record_failure(
            conn,
            source_id,
            int(failures),
            ErrorCode.INTERRUPTED,
            now,
            f"id=? AND state='leased' AND {null_safe_equal(conn, 'lease_owner')} AND attempt=?",
            (source_id, owner, attempt),
            Reason.LEASE_EXPIRED.value,
        )
        if outcome is not None:
            outcomes.append(outcome)
    return outcomes


def due_source_ids(conn: DbConn, now: float, limit: int = 50) -> list[str]:
    """The current person's sources that may be attempted now, in the order they should be."""
    mine, owners = source_owner_clause(conn)
    return [
        row[0]
        for row in conn.execute(
            "SELECT id FROM sources WHERE state='pending' AND next_due_at<=? "
            f"AND consecutive_failures<?{mine} ORDER BY {DUE_ORDER} LIMIT ?",
            (now, policy.FAILURE_CAP, *owners, limit),
        )
    ]
