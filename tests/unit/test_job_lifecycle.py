"""The job state machine under a frozen clock, through memevo's own functions."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.errors import UsageError
from memory_core.jobs import policy
from memory_core.jobs.forced import pick_forced_source
from memory_core.jobs.lifecycle import (
    complete_job,
    due_source_ids,
    fail_job,
    lease_job,
    recover_expired_leases,
    release_job,
)
from memory_core.records import ErrorCode, JobState
from memory_core.store.engines.database import Store
from memory_core.store.tables.sources import require_source

LEASE = 150.0
START = "2026-03-01 12:00:00"


def capture(store: Store, text: str = "We decided to use SQLite for the queue") -> str:
    with store.transaction() as conn:
        return capture_source(
            conn, source_type="user_statement", origin="/work/app", text=text, now=clock.now()
        ).source_id


def claim(store: Store, source_id: str | None = None, forced: bool = False, owner: str = "w1"):
    with store.transaction() as conn:
        return lease_job(conn, owner=owner, now=clock.now(), lease_seconds=LEASE, source_id=source_id, forced=forced)


def fail(store: Store, job, code=ErrorCode.PROVIDER):
    with store.transaction() as conn:
        return fail_job(conn, job, code, clock.now())


def test_retry_schedule_is_1_5_15_60_then_60() -> None:
    assert [policy.retry_delay(n) for n in range(1, 8)] == [60, 300, 900, 3600, 3600, 3600, 3600]
    assert policy.next_retry_at(2, 1000.0) == 1300.0


def test_whole_backoff_schedule_and_pause_at_fifth_failure(store: Store) -> None:
    with freeze_time(START) as frozen:
        sid = capture(store)
        expected_delays = [60, 300, 900, 3600]
        for n, delay in enumerate(expected_delays, start=1):
            job = claim(store, sid)
            assert job is not None and job.attempt == n
            outcome = fail(store, job)
            assert outcome is not None
            assert outcome.state == JobState.PENDING
            assert outcome.consecutive_failures == n
            assert outcome.next_due_at == clock.now() + delay
            # Not due a second early.
            frozen.tick(delay - 1)
            assert claim(store, sid) is None
            assert sid not in due_source_ids(store.conn, clock.now())
            frozen.tick(1)
        job = claim(store, sid)
        assert job is not None
        outcome = fail(store, job, ErrorCode.INVALID_OUTPUT)
        assert outcome is not None and outcome.state == JobState.PAUSED
        source = require_source(store.conn, sid)
        assert source.state == JobState.PAUSED
        assert source.consecutive_failures == 5
        assert source.last_error_code == ErrorCode.INVALID_OUTPUT
        frozen.tick(24 * 3600)
        assert claim(store, sid) is None  # paused stays paused


def test_success_resets_failure_fields(store: Store) -> None:
    with freeze_time(START) as frozen:
        sid = capture(store)
        fail(store, claim(store, sid))
        frozen.tick(60)
        job = claim(store, sid)
        with store.transaction() as conn:
            assert complete_job(conn, job, clock.now())
        source = require_source(store.conn, sid)
        assert source.state == JobState.DONE
        assert source.consecutive_failures == 0
        assert source.last_error_code is None and source.last_failure_at is None
        assert source.completed_at == clock.now()


def test_forced_evolve_overrides_delay_and_pause_without_reset(store: Store) -> None:
    with freeze_time(START):
        sid = capture(store)
        for _ in range(5):
            job = claim(store, sid, forced=True)
            assert job is not None
            fail(store, job)
        assert require_source(store.conn, sid).state == JobState.PAUSED
        assert claim(store, sid) is None
        with store.transaction() as conn:
            assert pick_forced_source(conn, None) == sid
        job = claim(store, sid, forced=True)
        assert job is not None and job.attempt == 6
        outcome = fail(store, job)
        assert outcome is not None
        assert outcome.consecutive_failures == 6  # budget not reset
        assert outcome.state == JobState.PAUSED


def test_forced_evolve_never_reruns_completed_or_retired(store: Store) -> None:
    with freeze_time(START):
        sid = capture(store)
        job = claim(store, sid)
        with store.transaction() as conn:
            complete_job(conn, job, clock.now())
        assert claim(store, sid, forced=True) is None
        with pytest.raises(UsageError, match="never run again"):
            pick_forced_source(store.conn, sid)
        assert pick_forced_source(store.conn, None) is None


def test_forced_pick_is_newest_eligible(store: Store) -> None:
    with freeze_time(START) as frozen:
        old = capture(store, "first statement to remember about deploys")
        frozen.tick(10)
        new = capture(store, "second statement to remember about releases")
        assert pick_forced_source(store.conn, None) == new
        assert old != new


def test_lease_expiry_at_exactly_150_seconds_is_interrupted_failure(store: Store) -> None:
    with freeze_time(START) as frozen:
        sid = capture(store)
        job = claim(store, sid)
        assert job is not None
        frozen.tick(149.999)
        with store.transaction() as conn:
            assert recover_expired_leases(conn, clock.now()) == []
        frozen.tick(0.001)
        with store.transaction() as conn:
            outcomes = recover_expired_leases(conn, clock.now())
        assert [o.source_id for o in outcomes] == [sid]
        source = require_source(store.conn, sid)
        assert source.state == JobState.PENDING
        assert source.last_error_code == ErrorCode.INTERRUPTED
        assert source.consecutive_failures == 1
        assert source.next_due_at == clock.now() + 60


def test_late_completion_from_expired_lease_changes_nothing(store: Store) -> None:
    with freeze_time(START) as frozen:
        sid = capture(store)
        first = claim(store, sid, owner="old-worker")
        frozen.tick(LEASE)
        with store.transaction() as conn:
            recover_expired_leases(conn, clock.now())
        frozen.tick(60)
        second = claim(store, sid, owner="new-worker")
        assert second is not None and second.attempt == 2
        with store.transaction() as conn:
            assert not complete_job(conn, first, clock.now())
            assert fail_job(conn, first, ErrorCode.TIMEOUT, clock.now()) is None
        source = require_source(store.conn, sid)
        assert source.state == JobState.LEASED and source.lease_owner == "new-worker"
        assert source.consecutive_failures == 1


def test_graceful_cancellation_is_not_counted(store: Store) -> None:
    with freeze_time(START):
        sid = capture(store)
        job = claim(store, sid)
        with store.transaction() as conn:
            assert release_job(conn, job)
        source = require_source(store.conn, sid)
        assert source.state == JobState.PENDING
        assert source.consecutive_failures == 0
        assert source.last_error_code is None
        assert claim(store, sid) is not None  # due again at once


def test_claim_without_id_takes_earliest_due_then_oldest(store: Store) -> None:
    with freeze_time(START) as frozen:
        a = capture(store, "alpha statement to remember")
        frozen.tick(1)
        b = capture(store, "beta statement to remember")
        job = claim(store)
        assert job is not None and job.source.id == a
        fail(store, job)
        job2 = claim(store)
        assert job2 is not None and job2.source.id == b
        assert claim(store) is None  # a is not due yet


def test_only_allowlisted_codes_are_stored(store: Store) -> None:
    with freeze_time(START):
        sid = capture(store)
        job = claim(store, sid)
        with pytest.raises(ValueError):
            with store.transaction() as conn:
                fail_job(conn, job, "Traceback: boom sk-secret", clock.now())  # type: ignore[arg-type]
        assert require_source(store.conn, sid).last_error_code is None
