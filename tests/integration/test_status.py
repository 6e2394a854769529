from __future__ import annotations

import json
from pathlib import Path

from memory_core.reports.status import memory_counts
from memory_core.store.engines.database import Store
from memory_core.store.schema.migrations import SCHEMA_VERSION
from memory_core.store.tables.memories import get_memory, put_memory
from tests.factories import make_memory
from tests.support.processes import memevo_process


def test_status_on_empty_home(home: Path) -> None:
    result = memevo_process("status", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["schema_version"] == SCHEMA_VERSION
    assert report["ok"] is True
    assert report["state_dir"] == str(home)
    assert report["memories"]["total"] == 0


def test_corrupt_row_reported_by_id_and_others_keep_working(home: Path) -> None:
    healthy = make_memory("The API listens on port 8080")
    broken = make_memory("The cache lives in Redis", kind="decision")
    with Store.open(home) as store:
        with store.transaction() as conn:
            put_memory(conn, healthy)
            put_memory(conn, broken)
            conn.execute("UPDATE memories SET body = substr(body, 1, 40) WHERE id=?", (broken.id,))
    result = memevo_process("status", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert report["integrity"]["corrupt_rows"][0]["id"] == broken.id
    assert report["integrity"]["corrupt_count"] == 1
    text = memevo_process("status")
    assert text.returncode == 0 and broken.id in text.stdout and "Traceback" not in text.stderr
    with Store.open(home) as store:
        assert get_memory(store.conn, healthy.id) == healthy
        assert memory_counts(store)["total"] == 2


def test_malformed_feedback_receipt_is_reported(home: Path) -> None:
    with Store.open(home) as store:
        with store.transaction() as conn:
            conn.execute("INSERT INTO feedback_receipts VALUES ('src', 'not-an-id', 'meh', 1.0)")
    report = json.loads(memevo_process("status", "--json").stdout)
    assert report["ok"] is False
    assert report["integrity"]["corrupt_rows"][0]["table"] == "feedback_receipts"


def test_status_survives_odd_heartbeat_and_job_columns(home: Path, backend: str) -> None:
    from memory_core.capture.intake import capture_source

    # SQLite stores any value in any column; PostgreSQL's double precision takes NaN at most.
    odd = "'soon'" if backend == "sqlite" else "'NaN'"
    with Store.open(home) as store:
        with store.transaction() as conn:
            sid = capture_source(conn, source_type="summary", origin="/tmp", text="we use Redis", now=1.7e9).source_id
            conn.execute(
                f"UPDATE sources SET consecutive_failures=2, next_due_at={odd}, last_failure_at=1e300 WHERE id=?",
                (sid,),
            )
    for heartbeat in ("nan", "inf", "1e400", "-1e20", "not a number"):
        with Store.open(home) as store:
            store.set_meta("worker_heartbeat", heartbeat)
        for args in (("status", "--json"), ("status",)):
            result = memevo_process(*args)
            assert result.returncode == 0 and "Traceback" not in result.stderr, (heartbeat, result.stderr)
        report = json.loads(memevo_process("status", "--json").stdout)
        assert report["worker"]["last_heartbeat"] is None
        assert report["failed_jobs"][0]["source_id"] == sid
        assert report["failed_jobs"][0]["next_due"] is None and report["failed_jobs"][0]["last_failure"] is None
        if backend == "sqlite":  # a NaN due time is a float to the record's validation
            assert report["integrity"]["corrupt_rows"][0]["id"] == sid


def test_status_shows_the_backend_with_the_password_masked(home: Path, backend: str, monkeypatch) -> None:
    import os

    if backend == "postgresql":  # the test server trusts the login: a password is accepted and ignored
        url = os.environ["MEMEVO_DATABASE_URL"].replace("postgresql://memevo@", "postgresql://memevo:pw-Secret9@")
        monkeypatch.setenv("MEMEVO_DATABASE_URL", url)
    text = memevo_process("status")
    report = json.loads(memevo_process("status", "--json").stdout)
    assert text.returncode == 0, text.stderr
    assert "pw-Secret9" not in text.stdout + text.stderr + json.dumps(report)
    if backend == "postgresql":
        assert report["store"].startswith("postgresql://memevo:********@127.0.0.1:")
        assert report["queue"] == "PostgresHuey in the same database" and report["backend"] == "postgresql"
        assert "store:           postgresql://memevo:********@" in text.stdout
    else:
        assert report["store"] == f"SQLite {home / 'memory.db'}" and report["queue"] == f"SQLite {home / 'queue.db'}"
        assert f"queue:           SQLite {home / 'queue.db'}" in text.stdout


def test_status_says_whether_a_worker_nudges_new_captures_itself(home: Path) -> None:
    """The capture watch's record (workers.capture_watch): shown while fresh, not when stale,
    unreadable or far ahead, as hooks judge it."""
    from memory_core import clock
    from memory_core.jobs.heartbeat import LIVE_SECONDS
    from tests.factories import worker_beating

    worker_beating(home, watching=True)
    report = json.loads(memevo_process("status", "--json").stdout)
    assert report["worker"]["watching_captures"] is True and report["worker"]["last_capture_watch"]
    assert "it nudges new captures itself" in memevo_process("status").stdout
    for value in (repr(clock.now() - LIVE_SECONDS - 5), repr(clock.now() + 3600), "nan", "soon"):
        with Store.open(home) as store:
            store.set_meta("capture_watch", value)
        report = json.loads(memevo_process("status", "--json").stdout)
        assert report["worker"]["watching_captures"] is False, value
        assert "nudges new captures" not in memevo_process("status").stdout
