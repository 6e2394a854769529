"""Without a model nothing fails: jobs wait uncounted, the worker says once what to set,
status and doctor say it is waiting for a model, and evolve refuses (exit 2)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.jobs.budget import usage_on
from memory_core.jobs.model_state import read_worker_model
from memory_core.records import JobState
from memory_core.store.engines.database import Store
from tests.support.processes import REPO
from tests.worker.conftest import capture, settings, source_row, worker_log
from workers.consolidate import AttemptStatus, consolidate_source


def test_attempts_without_a_model_count_nothing_and_never_pause(home: Path) -> None:
    sid = capture(home)
    for forced in (False, True, False, True, False, True):  # more than the five that used to pause it
        outcome = consolidate_source(settings(), sid, forced=forced)
        assert outcome.status == AttemptStatus.NO_MODEL
    source = source_row(home, sid)
    assert (source.state, source.attempt, source.consecutive_failures, source.last_error_code) == (
        JobState.PENDING,
        0,
        0,
        None,
    )
    with Store.open(home) as store:
        usage = usage_on(store.conn, clock.now())
    assert (usage.calls, usage.tokens) == (0, 0)


def test_recovery_without_a_model_nudges_nothing_and_reports_it(home: Path, monkeypatch) -> None:
    from workers import tasks

    enqueued: list[object] = []
    monkeypatch.setattr(tasks, "consolidate", lambda *args, **kwargs: enqueued.append(args))
    capture(home)
    assert tasks.recover_jobs() == {"interrupted": 0, "nudged": 0}
    with Store.open(home) as store:
        assert read_worker_model(store.conn) is False
    assert enqueued == []


def test_status_and_doctor_say_waiting_for_a_model(home: Path, cli_run, monkeypatch, tmp_path: Path) -> None:
    from workers.tasks import recover_jobs

    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # doctor reads agent settings there

    capture(home)
    recover_jobs()  # the worker ran without a model and said so in memory.db
    report = json.loads(cli_run("status", "--json").output)
    assert report["worker"]["waiting_for_model"] is True and report["worker"]["worker_has_model"] is False
    text = cli_run("status").output
    assert "waiting for a model: 1 sources wait" in text and "MEMEVO_MODEL_URL" in text
    # The shell running doctor has a model; the worker that reported does not.
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "tiny")
    doctor = json.loads(cli_run("doctor", "--json").output)
    [worker] = [c for c in doctor["checks"] if c["name"] == "worker"]
    assert worker["status"] == "error" and "waiting for a model" in worker["summary"]
    assert "MEMEVO_MODEL_URL" in worker["fix"]


def test_doctor_without_any_model_says_sources_wait(home: Path, cli_run, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    capture(home)
    doctor = json.loads(cli_run("doctor", "--json").output)
    [model] = [c for c in doctor["checks"] if c["name"] == "model"]
    assert model["status"] == "error" and "waiting for a model" in model["summary"]


def test_evolve_without_a_model_is_a_usage_error(home: Path, cli_run, nudges) -> None:
    sid = capture(home)
    for args in (("evolve",), ("evolve", "--wait", "10"), ("evolve", "--source", sid, "--json")):
        result = cli_run(*args)
        assert result.exit_code == 2, args
        assert "MEMEVO_MODEL_URL" in result.output and "MEMEVO_MODEL " in result.output
        assert "queued" not in result.output.replace("nothing was queued", "")
    source = source_row(home, sid)
    assert source.forced_at is None and source.attempt == 0
    assert nudges == []


@pytest.mark.slow
def test_worker_without_a_model_says_once_what_to_set(home: Path, tmp_path: Path) -> None:
    sid = capture(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env.update({"MEMEVO_HOME": str(home), "PYTHONPATH": str(REPO)})
    log = tmp_path / "worker.out"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "worker", "-w", "2"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 30
        while "no model configured" not in log.read_text(errors="replace") and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)  # the second worker process has started too by now
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    said = [line for line in log.read_text(errors="replace").splitlines() if "no model configured" in line]
    assert len(said) == 1, log.read_text(errors="replace")
    assert "MEMEVO_MODEL_URL" in said[0] and "MEMEVO_MODEL " in said[0] and "restart the worker" in said[0]
    assert worker_log(home).count("no model configured") == 1
    source = source_row(home, sid)
    assert (source.state, source.attempt, source.consecutive_failures) == (JobState.PENDING, 0, 0)
