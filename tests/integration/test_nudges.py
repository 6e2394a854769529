"""Hooks really enqueue their nudges, read back from the test's own queue file; importing
the Huey app writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.store.engines.database import Store
from tests.factories import worker_beating
from tests.support.processes import memevo_process, python_process

# Lists the queued task names and arguments of the queue in MEMEVO_HOME.
_PENDING = (
    "import json; from workers.main import huey; print(json.dumps([[t.name, list(t.args)] for t in huey.pending()]))"
)


def pending(home: Path) -> list[list]:
    result = python_process(_PENDING, env={"MEMEVO_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def generic(event: str, **fields: object) -> str:
    return json.dumps(
        {
            "schema": "memevo.hook/v1",
            "agent": "test-agent",
            "event": event,
            "session_id": "s1",
            "cwd": "/tmp/project",
            **fields,
        }
    )


def test_importing_the_worker_modules_writes_nothing(tmp_path: Path) -> None:
    state = tmp_path / "not-yet"
    result = python_process("import workers.main, workers.tasks, workers.app", env={"MEMEVO_HOME": str(state)})
    assert result.returncode == 0, result.stderr
    assert not state.exists()


@pytest.mark.sqlite_only  # the SQLite queue file (on PostgreSQL the queue is in the store's database)
def test_queue_file_is_private_once_used(home: Path) -> None:
    assert pending(home) == []
    assert oct((home / "queue.db").stat().st_mode & 0o777) == "0o600"
    assert oct(home.stat().st_mode & 0o777) == "0o700"


@pytest.mark.sqlite_only  # PostgreSQL hooks go through memevo serve
def test_session_start_enqueues_recovery(home: Path) -> None:
    result = memevo_process("hook", "session_start", input=generic("session_start"))
    assert result.returncode == 0 and result.stdout == "", result.stderr
    assert [name for name, _ in pending(home)] == ["recover"]


@pytest.mark.sqlite_only  # PostgreSQL hooks go through memevo serve
def test_capture_enqueues_consolidation_of_the_new_source(home: Path) -> None:
    worker_beating(home)
    payload = generic("turn_end", user_messages=["Remember that the staging database is on port 5433."])
    result = memevo_process("hook", "turn_end", input=payload)
    assert result.returncode == 0 and result.stdout == "", result.stderr
    with Store.open_readonly(home) as store:
        (source_id,) = store.conn.execute("SELECT id FROM sources").fetchone()
    assert pending(home) == [["consolidate", [source_id]]]


@pytest.mark.sqlite_only  # PostgreSQL hooks go through memevo serve
def test_a_repeated_capture_enqueues_nothing_more(home: Path) -> None:
    worker_beating(home)
    payload = generic("compaction", summary="We agreed to ship the CLI first.")
    for _ in range(2):
        assert memevo_process("hook", "compaction", input=payload).returncode == 0
    assert [name for name, _ in pending(home)] == ["consolidate"]


@pytest.mark.sqlite_only  # the SQLite queue file, read only by this machine's workers
def test_with_no_worker_beating_a_capture_writes_no_nudge_and_recovery_finds_it(home: Path) -> None:
    """No worker has beaten for three minutes (or ever): the capture stores its source and job
    and writes nothing to queue.db; the recovery of a worker that starts nudges it."""
    from cli import nudge
    from memory_core import clock
    from memory_core.jobs.heartbeat import HEARTBEAT_KEY, LIVE_SECONDS

    assert (nudge.HEARTBEAT_KEY, nudge.LIVE_SECONDS) == (HEARTBEAT_KEY, LIVE_SECONDS)  # spelt out for hooks
    statement = generic("turn_end", user_messages=["Remember that the staging database is on port 5433."])
    assert memevo_process("hook", "turn_end", input=statement).returncode == 0
    worker_beating(home, clock.now() - LIVE_SECONDS - 5)  # a worker that stopped a while ago
    summary = generic("compaction", summary="We agreed to ship the CLI first.")
    assert memevo_process("hook", "compaction", input=summary).returncode == 0
    assert not (home / "queue.db").exists()  # never written
    with Store.open_readonly(home) as store:
        ids = {row[0] for row in store.conn.execute("SELECT id FROM sources WHERE state='pending'")}
    assert len(ids) == 2
    # A worker starts: its recovery nudges every due source.
    result = python_process(
        "import json; from workers.tasks import recover_jobs; print(json.dumps(recover_jobs()))",
        env={"MEMEVO_HOME": str(home), "MEMEVO_MODEL_URL": "http://127.0.0.1:9/v1", "MEMEVO_MODEL": "fake"},
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1])["nudged"] == 2
    assert sorted(args[0] for name, args in pending(home) if name == "consolidate") == sorted(ids)


@pytest.mark.sqlite_only  # the SQLite queue file, read only by this machine's workers
def test_with_a_worker_watching_for_captures_a_capture_writes_no_nudge(home: Path) -> None:
    """A worker that watches memory.db for captures (workers.capture_watch) nudges them itself:
    the hook opens no queue.db; once that watch is stale, a beating worker is nudged again."""
    from cli import nudge
    from memory_core import clock
    from memory_core.jobs.heartbeat import LIVE_SECONDS, WATCH_AHEAD_SECONDS, WATCH_KEY

    assert (nudge.WATCH_KEY, nudge.AHEAD_SECONDS) == (WATCH_KEY, WATCH_AHEAD_SECONDS)  # spelt out for hooks
    worker_beating(home, watching=True)
    statement = generic("turn_end", user_messages=["Remember that the staging database is on port 5433."])
    assert memevo_process("hook", "turn_end", input=statement).returncode == 0
    assert not (home / "queue.db").exists()  # never written
    worker_beating(home)  # still beating, but its watch went quiet three minutes ago
    with Store.open(home) as store, store.transaction() as conn:
        conn.execute("UPDATE metadata SET value=? WHERE key=?", (repr(clock.now() - LIVE_SECONDS - 5), WATCH_KEY))
    summary = generic("compaction", summary="We agreed to ship the CLI first.")
    assert memevo_process("hook", "compaction", input=summary).returncode == 0
    assert [name for name, _ in pending(home)] == ["consolidate"]  # the second capture's only


@pytest.mark.sqlite_only  # the SQLite queue file
@pytest.mark.parametrize("value", ["soon", "nan", "inf", "ahead"])
def test_a_watch_record_that_is_no_recent_time_still_nudges(home: Path, value: str) -> None:
    """Unreadable, not finite or far ahead of the hook's clock: the hook does not trust it."""
    from memory_core import clock

    worker_beating(home)
    recorded = repr(clock.now() + 3600) if value == "ahead" else value
    with Store.open(home) as store, store.transaction() as conn:
        conn.execute("INSERT INTO metadata (key, value) VALUES ('capture_watch', ?)", (recorded,))
    payload = generic("compaction", summary="We agreed to ship the CLI first.")
    assert memevo_process("hook", "compaction", input=payload).returncode == 0
    assert [name for name, _ in pending(home)] == ["consolidate"]


def test_the_capture_watch_runs_on_sqlite_only(home: Path, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL hooks go through memevo serve, which nudges in the capture's transaction."""
    from memory_core.config import load_settings
    from workers import capture_watch

    threads: list[object] = []
    monkeypatch.setattr(capture_watch, "_started_pid", None)
    monkeypatch.setattr(capture_watch.threading.Thread, "start", lambda self: threads.append(self))
    started = capture_watch.start(load_settings(), lambda source_id: None)
    assert started == (backend == "sqlite") and len(threads) == int(started)


@pytest.mark.sqlite_only  # the SQLite queue file
def test_a_heartbeat_that_cannot_be_read_still_nudges(home: Path) -> None:
    """A heartbeat the hook cannot read as a time: it nudges, as it did before."""
    with Store.open(home) as store, store.transaction() as conn:
        conn.execute("INSERT INTO metadata (key, value) VALUES ('worker_heartbeat', 'soon')")
    payload = generic("compaction", summary="We agreed to ship the CLI first.")
    assert memevo_process("hook", "compaction", input=payload).returncode == 0
    assert [name for name, _ in pending(home)] == ["consolidate"]


def test_a_cli_nudge_goes_to_the_queue_of_the_state_dir_it_runs_for(home: Path, monkeypatch) -> None:
    """A process that imported the worker app for another state dir (or another schema, since
    dropped) still nudges the queue its state dir names now."""
    import workers.app
    from cli.nudge import nudge_consolidate

    class Elsewhere:
        @property
        def storage(self):
            raise AssertionError("nudged the queue of the state dir the app was imported with")

    monkeypatch.setattr(workers.app, "huey", Elsewhere())
    Store.open(home).close()
    assert nudge_consolidate("src-1") is True
    assert pending(home) == [["consolidate", ["src-1"]]]


@pytest.mark.sqlite_only  # the SQLite queue file
def test_a_starting_worker_nudges_the_whole_backlog_gathered_while_none_ran(home: Path) -> None:
    """Captures made while no worker ran are in no queue; a starting worker nudges every due
    one at once, while the periodic and on-demand recoveries keep to their batch."""
    from memory_core import clock
    from memory_core.capture.intake import capture_source
    from workers.tasks import RENUDGE_BATCH

    now = clock.now()
    with Store.open(home) as store, store.transaction() as conn:
        for n in range(RENUDGE_BATCH + 10):
            capture_source(conn, source_type="summary", origin="/work/app", text=f"Decision {n} stands.", now=now)

    def recover(call: str) -> int:
        result = python_process(
            f"import json; from workers.tasks import recover_jobs; print(json.dumps(recover_jobs({call})))",
            env={"MEMEVO_HOME": str(home), "MEMEVO_MODEL_URL": "http://127.0.0.1:9/v1", "MEMEVO_MODEL": "fake"},
        )
        assert result.returncode == 0, result.stderr
        return int(json.loads(result.stdout.strip().splitlines()[-1])["nudged"])

    assert recover("") == RENUDGE_BATCH  # on demand (a session start): one batch
    (home / "queue.db").unlink()  # the queue lost, as after a reinstall
    for suffix in ("-wal", "-shm"):
        (home / f"queue.db{suffix}").unlink(missing_ok=True)
    assert recover("startup=True") == RENUDGE_BATCH + 10
    assert len([name for name, _ in pending(home) if name == "consolidate"]) == RENUDGE_BATCH + 10
