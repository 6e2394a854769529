"""A first-call deadline that fits a local model: a worker's first call to its model may
take MEMEVO_FIRST_CALL_SECONDS (a local server loads and warms the model on it), later calls
MEMEVO_ATTEMPT_SECONDS; a server answering 503 "Loading model" is asked again within the
deadline. The fake model takes real seconds, as a loading model does."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from memory_core import clock
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import capture, settings, source_row
from workers import model_warmup
from workers.consolidate import AttemptOutcome, consolidate_source

LOADING = Reply(status=503, body='{"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}')


@pytest.fixture
def deadlines(monkeypatch: pytest.MonkeyPatch):
    def set_deadlines(attempt: float, first: float) -> None:
        monkeypatch.setenv("MEMEVO_ATTEMPT_SECONDS", str(attempt))
        monkeypatch.setenv("MEMEVO_FIRST_CALL_SECONDS", str(first))
        monkeypatch.setenv("MEMEVO_LEASE_GRACE_SECONDS", "2")

    return set_deadlines


def timed(home: Path, sid: str) -> tuple[AttemptOutcome, float]:
    started = time.monotonic()
    outcome = consolidate_source(settings(), sid)
    return outcome, time.monotonic() - started


def test_the_first_call_may_take_longer_than_later_ones(home: Path, model: FakeModelServer, deadlines) -> None:
    deadlines(attempt=1, first=6)
    model.enqueue(Reply(delay=2.5), Reply(delay=2.5))
    sid = capture(home, "remember that the staging database listens on port 6543")
    leases: list[float] = []

    def watch() -> None:  # the lease written while the first call runs covers its deadline
        end = time.monotonic() + 5
        while time.monotonic() < end and not leases:
            row = source_row(home, sid)
            if row.state == "leased" and row.lease_expires_at is not None:
                leases.append(row.lease_expires_at - clock.now())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    first, took = timed(home, sid)
    watcher.join()
    assert first.status == "done" and took >= 2.5
    assert leases and leases[0] > 6  # 6 s for the call + 2 s grace, less the time it took to look
    second, took = timed(home, capture(home, "remember that the logs are kept for 14 days"))
    assert (second.error_code, second.error_reason) == ("timeout", "deadline")
    assert 0.9 <= took < 2.5


def test_a_first_call_that_runs_out_leaves_the_next_one_a_first_call(
    home: Path, model: FakeModelServer, deadlines
) -> None:
    deadlines(attempt=1, first=2)
    model.enqueue(Reply(delay=3), Reply(delay=1.5))
    sid = capture(home)
    outcome, took = timed(home, sid)
    assert (outcome.error_code, outcome.error_reason) == ("timeout", "deadline") and 1.9 <= took < 3
    row = source_row(home, sid)
    assert row.state == "pending" and row.consecutive_failures == 1  # the usual backoff
    assert model_warmup.is_first_call(settings())
    assert consolidate_source(settings(), capture(home, "remember that the cache is redis")).status == "done"
    assert not model_warmup.is_first_call(settings())


def test_a_loading_server_is_asked_again_within_the_attempt(
    home: Path, model: FakeModelServer, deadlines, monkeypatch: pytest.MonkeyPatch
) -> None:
    deadlines(attempt=1, first=10)
    monkeypatch.setattr(model_warmup, "LOADING_POLL_SECONDS", 1.0)
    model.enqueue(LOADING, LOADING)
    sid = capture(home)
    outcome, took = timed(home, sid)
    assert outcome.status == "done" and model.request_count == 3 and took >= 2
    assert source_row(home, sid).attempt == 1


def test_a_server_still_loading_at_the_deadline_fails_as_unavailable(
    home: Path, model: FakeModelServer, deadlines, monkeypatch: pytest.MonkeyPatch
) -> None:
    deadlines(attempt=1, first=3)
    monkeypatch.setattr(model_warmup, "LOADING_POLL_SECONDS", 1.0)
    model.enqueue(*[LOADING] * 10)
    sid = capture(home)
    outcome, took = timed(home, sid)
    assert (outcome.error_code, outcome.error_reason) == ("unavailable", "http_503")
    assert 2 <= model.request_count <= 3 and took < 3.5
    assert source_row(home, sid).consecutive_failures == 1


def test_a_503_that_is_not_loading_is_not_asked_again(home: Path, model: FakeModelServer, deadlines) -> None:
    deadlines(attempt=1, first=10)
    model.enqueue(Reply(status=503))
    outcome, _ = timed(home, capture(home))
    assert (outcome.error_code, outcome.error_reason) == ("unavailable", "http_503")
    assert model.request_count == 1
