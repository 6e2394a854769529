"""`memevo evolve`: one forced attempt at a time, reused while queued or running, and
`--wait` exit codes that tell done, failed, paused, budget spent and no outcome apart."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.jobs.budget import count_call
from memory_core.jobs.lifecycle import lease_job
from memory_core.records import JobState
from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import capture, settings, source_row
from workers.consolidate import consolidate_source


@pytest.fixture
def worker(home: Path) -> Iterator[Callable[..., threading.Thread]]:
    """Plays the worker: once a forced attempt is requested for ``sid``, runs it here
    (``before`` runs first, for instance to spend the budget meanwhile)."""
    threads: list[threading.Thread] = []

    def start(sid: str, before: Callable[[], None] | None = None, attempt: bool = True) -> threading.Thread:
        def run() -> None:
            deadline = time.monotonic() + 20
            while source_row(home, sid).forced_at is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if before is not None:
                before()
            if attempt:
                consolidate_source(settings(), sid, forced=True)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        threads.append(thread)
        return thread

    yield start
    for thread in threads:
        thread.join(timeout=30)


def evolve(cli_run, *args: str) -> tuple[int, dict]:
    result = cli_run("evolve", "--json", *args)
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_done_exits_0(home: Path, model: FakeModelServer, cli_run, worker) -> None:
    sid = capture(home)
    worker(sid)
    code, data = evolve(cli_run, "--source", sid, "--wait", "20")
    assert (code, data["status"]) == (0, "done")


def test_failed_exits_3_with_code_and_reason(home: Path, model: FakeModelServer, cli_run, worker) -> None:
    sid = capture(home)
    model.enqueue(Reply(content="Sure! Here is what I found."))
    worker(sid)
    code, data = evolve(cli_run, "--source", sid, "--wait", "20")
    assert (code, data["status"], data["error_code"], data["error_reason"]) == (
        3,
        "failed",
        "invalid_output",
        "not_json",
    )
    text = cli_run("evolve", "--source", sid)  # queued again, no wait: exit 0
    assert text.exit_code == 0


def test_paused_exits_4(home: Path, model: FakeModelServer, cli_run, worker) -> None:
    sid = capture(home)
    with Store.open(home) as store, store.transaction() as conn:
        conn.execute("UPDATE sources SET consecutive_failures=4, last_failure_at=1.0 WHERE id=?", (sid,))
    model.enqueue(Reply(status=503))
    worker(sid)
    code, data = evolve(cli_run, "--source", sid, "--wait", "20")
    assert (code, data["status"], data["error_code"], data["error_reason"]) == (4, "paused", "unavailable", "http_503")


def test_budget_spent_meanwhile_exits_5(
    home: Path, model: FakeModelServer, cli_run, worker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_CALLS", "1")
    sid = capture(home)

    def spend() -> None:  # other attempts use up the day's calls before this one starts
        with Store.open(home) as store, store.transaction() as conn:
            count_call(conn, clock.now())

    worker(sid, before=spend, attempt=False)
    code, data = evolve(cli_run, "--source", sid, "--wait", "20")
    assert (code, data["status"]) == (5, "budget_spent")
    assert model.request_count == 0


def test_no_outcome_within_the_wait_exits_6(home: Path, model: FakeModelServer, cli_run) -> None:
    sid = capture(home)
    code, data = evolve(cli_run, "--source", sid, "--wait", "0.5")
    assert (code, data["status"]) == (6, "queued") and "memevo worker" in data["hint"]


def test_second_evolve_reuses_the_queued_attempt(home: Path, model: FakeModelServer, cli_run, nudges) -> None:
    sid = capture(home)
    model.enqueue(Reply(status=503), Reply(status=503))
    first = evolve(cli_run)
    second = evolve(cli_run)
    third = evolve(cli_run, "--source", sid)
    assert first == (0, {"source_id": sid, "status": "queued", "reused": False})
    assert second == (0, {"source_id": sid, "status": "queued", "reused": True})
    assert third == (0, {"source_id": sid, "status": "queued", "reused": True})
    assert nudges == [(sid, True)]
    # Even if a forced nudge is delivered twice, the request is served once: one attempt,
    # one failure, not two back to back.
    consolidate_source(settings(), sid, forced=True)
    consolidate_source(settings(), sid, forced=True)
    source = source_row(home, sid)
    assert (source.attempt, source.consecutive_failures, source.forced_at) == (1, 1, None)
    assert model.request_count == 1


def test_second_evolve_while_running_waits_for_that_attempt(
    home: Path, model: FakeModelServer, cli_run, nudges
) -> None:
    sid = capture(home)
    with Store.open(home) as store, store.transaction() as conn:
        lease = lease_job(conn, owner="elsewhere", now=clock.now(), lease_seconds=150, source_id=sid)
    assert lease is not None
    code, data = evolve(cli_run, "--source", sid)
    assert (code, data["status"], data["reused"]) == (0, "running", True)
    assert nudges == []
    assert source_row(home, sid).state == JobState.LEASED
