"""What lets workers on several machines share one store: leases that skip rows another
worker holds, one recovery per minute among all consumers, per-worker heartbeats, and the
clock check against the database server."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from freezegun import freeze_time

from memory_core import clock
from memory_core.jobs import clock_skew
from memory_core.jobs.heartbeat import read_heartbeat, read_worker_count, write_heartbeat
from memory_core.jobs.lifecycle import lease_job
from memory_core.jobs.model_state import read_worker_model, write_worker_model
from memory_core.jobs.recovery_claim import claim_recovery_minute, minute_is_new
from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelServer
from tests.worker.conftest import capture
from workers import liveness

NOW = 1_800_000_000.0


def test_skew_policy_warns_above_two_seconds_and_refuses_above_half_the_grace() -> None:
    assert clock_skew.skew_verdict(NOW, NOW + 0.3, 30).action == clock_skew.OK
    warn = clock_skew.skew_verdict(NOW, NOW - 3.0, 30)
    assert warn.action == clock_skew.WARN and "3.0 s ahead of" in warn.message and warn.skew == -3.0
    refuse = clock_skew.skew_verdict(NOW, NOW + 16.0, 30)
    assert refuse.action == clock_skew.REFUSE and "16.0 s behind" in refuse.message and "NTP" in refuse.message
    assert clock_skew.skew_verdict(NOW, NOW + 14.9, 30).action == clock_skew.WARN
    # A short grace refuses early; a grace of 0 still tolerates measurement noise.
    assert clock_skew.skew_verdict(NOW, NOW + 1.5, 2).action == clock_skew.REFUSE
    assert clock_skew.skew_verdict(NOW, NOW + 0.01, 0).action == clock_skew.OK


def test_the_measured_skew_is_small_on_this_machine(store: Store, backend: str) -> None:
    skew = clock_skew.measure_skew(store.conn)
    if backend == "sqlite":
        assert skew is None and clock_skew.check_clock(store.conn, 30) is None
    else:
        assert skew is not None and abs(skew) < 1.0
        assert clock_skew.check_clock(store.conn, 30).action == clock_skew.OK  # type: ignore[union-attr]


@pytest.mark.postgres_only
def test_a_frozen_clock_is_measured_through_the_clock_seam(store: Store) -> None:
    with freeze_time("2020-01-01 00:00:00"):
        verdict = clock_skew.check_clock(store.conn, 30)
    assert verdict is not None and verdict.action == clock_skew.REFUSE and verdict.skew > 86_400


def test_a_refusing_worker_leases_nothing_until_its_clock_agrees(
    home: Path, model: FakeModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.worker.conftest import settings
    from workers.consolidate import AttemptStatus, consolidate_source

    log = logging.getLogger("memevo.test.liveness")
    sid = capture(home)
    try:
        with caplog.at_level(logging.INFO, logger="memevo.test.liveness"):
            liveness.judge(clock_skew.skew_verdict(NOW, NOW + 40, 30), log)
            assert not liveness.may_lease()
            assert consolidate_source(settings(), sid).status == AttemptStatus.CLOCK_SKEW
            assert model.request_count == 0
            liveness.judge(clock_skew.skew_verdict(NOW, NOW, 30), log)
            assert liveness.may_lease()
        assert "leasing nothing until it is fixed" in caplog.text and "leasing again" in caplog.text
    finally:
        liveness.judge(None, log)
    with Store.open(home) as store:
        assert store.conn.execute("SELECT state, attempt FROM sources WHERE id=?", (sid,)).fetchone() == ("pending", 0)


def test_recovery_runs_once_a_minute_among_all_workers(store: Store) -> None:
    with store.transaction() as conn:
        assert claim_recovery_minute(conn, NOW)
    for later in (NOW + 1, NOW + 59):  # NOW starts a minute
        with store.transaction() as conn:
            assert not claim_recovery_minute(conn, later)
    with store.transaction() as conn:
        assert claim_recovery_minute(conn, NOW + 60)
    assert minute_is_new(None, NOW) and not minute_is_new(int(NOW // 60) + 5, NOW)
    assert minute_is_new(int(NOW // 60) + 120, NOW)  # a claim from a clock far ahead is stale


def test_heartbeats_count_workers_and_hosts_and_any_live_model_counts(store: Store) -> None:
    with store.transaction() as conn:
        write_heartbeat(conn, NOW - 1000, "old-host:1")  # silent: not counted
        write_worker_model(conn, False, "old-host:1")
        write_heartbeat(conn, NOW - 5, "laptop:11")
        write_worker_model(conn, False, "laptop:11")
        write_heartbeat(conn, NOW - 2, "devbox:21")
        write_worker_model(conn, True, "devbox:21")
        write_heartbeat(conn, NOW, "devbox:22")
        write_worker_model(conn, False, "devbox:22")  # the last writer has no model …
    assert read_heartbeat(store.conn) == NOW
    assert tuple(read_worker_count(store.conn, NOW)) == (3, 2)
    assert read_worker_model(store.conn) is True  # … but a running worker has one


@pytest.mark.postgres_only
def test_a_lease_skips_the_job_another_transaction_holds(home: Path, store: Store) -> None:
    first, second = capture(home, "the api listens on port 8080"), capture(home, "the cache listens on port 6379")
    other = Store.open(home)
    try:
        other.conn.execute("BEGIN")
        held = other.conn.execute(
            "SELECT id FROM sources WHERE state='pending' ORDER BY next_due_at, created_at, id LIMIT 1 FOR UPDATE"
        ).fetchone()[0]
        # A leasing transaction without the write lock, as a reader racing it would be.
        store.conn.execute("BEGIN")
        lease = lease_job(store.conn, owner="w2", now=clock.now(), lease_seconds=60)
        store.conn.execute("COMMIT")
        assert lease is not None and lease.source.id != held and {held, lease.source.id} == {first, second}
    finally:
        other.conn.execute("ROLLBACK")
        other.close()
