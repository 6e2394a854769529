"""`memevo evolve`: what it reports when no attempt can run or an attempt is handed back."""

from __future__ import annotations

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.jobs.budget import count_call
from memory_core.jobs.forced import attempt_outcome
from memory_core.jobs.lifecycle import fail_job, lease_job, release_job
from memory_core.records import ErrorCode
from memory_core.store.engines.database import Store
from memory_core.store.tables.sources import require_source


def capture(store: Store) -> str:
    with store.transaction() as conn:
        return capture_source(
            conn,
            source_type="user_statement",
            origin="/work/app",
            text="remember that releases are cut on Tuesdays",
            now=clock.now(),
        ).source_id


@pytest.fixture
def model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "tiny")


def test_evolve_on_a_spent_budget_says_so_instead_of_queueing(store: Store, cli_run, monkeypatch, model_env) -> None:
    sid = capture(store)
    with store.transaction() as conn:
        count_call(conn, clock.now())
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_CALLS", "1")
    result = cli_run("evolve", "--source", sid, "--wait", "5")
    assert result.exit_code == 5  # its own code: the budget is spent
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "budget is spent" in lines[0] and "resets at" in lines[0]
    assert "queued" not in result.output
    assert require_source(store.conn, sid).attempt == 0


@pytest.mark.parametrize("ending", ["released", "failed"])
def test_wait_outcome_tells_a_handed_back_attempt_from_a_failure(store: Store, ending: str) -> None:
    sid = capture(store)
    with store.transaction() as conn:
        job = lease_job(conn, owner="w1", now=clock.now(), lease_seconds=150, source_id=sid)
        assert job is not None
        fail_job(conn, job, ErrorCode.TIMEOUT, clock.now())
    before = require_source(store.conn, sid)
    with store.transaction() as conn:
        job = lease_job(conn, owner="w2", now=clock.now(), lease_seconds=150, source_id=sid, forced=True)
        assert job is not None
        if ending == "released":
            release_job(conn, job)
        else:
            fail_job(conn, job, ErrorCode.PROVIDER, clock.now() + 1)
    data = attempt_outcome(before, require_source(store.conn, sid))
    assert data["status"] == ending
    assert data["error_code"] == (None if ending == "released" else "provider")


def test_evolve_without_a_worker_keeps_status_a_value_and_hints_separately(store: Store, cli_run, model_env) -> None:
    import json

    capture(store)
    result = cli_run("evolve", "--wait", "0.3", "--json")
    assert result.exit_code == 6  # no outcome within --wait
    data = json.loads(result.output)
    assert data["status"] == "queued" and data["reused"] is False
    assert "memevo worker" in data["hint"]
    text = cli_run("evolve", "--wait", "0.3").output
    assert ": queued" in text and "(not picked up yet: is `memevo worker` running?)" in text
