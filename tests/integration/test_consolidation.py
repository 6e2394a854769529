"""One attempt end to end in this process, against a real loopback model server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.config import load_settings
from memory_core.jobs.budget import usage_on
from memory_core.records import ErrorCode, JobState
from memory_core.store.engines.database import Store
from memory_core.store.tables.sources import require_source
from tests.support.fake_model import FakeModelServer, Reply
from workers.consolidate import consolidate_source

ORIGIN = "/work/app"


def capture(
    home: Path,
    text: str = "remember that the staging database listens on port 5433",
    source_type: str = "user_statement",
) -> str:
    with Store.open(home) as store:
        with store.transaction() as conn:
            return capture_source(conn, source_type=source_type, origin=ORIGIN, text=text, now=clock.now()).source_id


def source_state(home: Path, sid: str):
    with Store.open(home) as store:
        return require_source(store.conn, sid)


def claim_count(home: Path) -> int:
    with Store.open(home) as store:
        return store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]


def test_success_writes_claims_and_counts_usage(home: Path, model: FakeModelServer) -> None:
    sid = capture(home)
    model.enqueue(
        Reply.of_claims(
            [{"kind": "fact", "content": "Staging DB listens on port 5433", "searchTerms": ["staging", "数据库"]}],
            usage={"prompt_tokens": 120, "completion_tokens": 30},
        )
    )
    outcome = consolidate_source(load_settings(), sid)
    assert outcome.status == "done", outcome
    assert source_state(home, sid).state == JobState.DONE
    with Store.open(home) as store:
        row = store.conn.execute("SELECT body FROM memories").fetchone()
        body = json.loads(row[0])
        assert body["evidence"]["basis"] == "user_statement" and body["evidence"]["method"] == "model"
        assert body["model_id"] == "fake-model" and body["source_id"] == sid
        usage = usage_on(store.conn, clock.now())
        assert (usage.calls, usage.tokens) == (1, 150)
    request = model.requests[0]
    assert request["max_tokens"] <= 8192 and "tools" not in request
    assert model.request_count == 1


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (Reply(content="this is not json"), ErrorCode.INVALID_OUTPUT),
        (Reply.of_claims([{"kind": "fact", "content": "valid claim", "confidence": 0.9}]), ErrorCode.INVALID_OUTPUT),
        (
            Reply.of_claims([{"kind": "fact", "content": f"claim number {i}"} for i in range(17)]),
            ErrorCode.INVALID_OUTPUT,
        ),
        (Reply.of_claims([{"kind": "fact", "content": "abc"}]), ErrorCode.INVALID_OUTPUT),
        (
            Reply.of_claims([{"kind": "fact", "content": "cut off claim"}], finish_reason="length"),
            ErrorCode.OUTPUT_LIMIT,
        ),
        (Reply(status=503), ErrorCode.UNAVAILABLE),
        (
            Reply.of_claims([{"kind": "fact", "content": "replaces nothing", "replaces": "a" * 24}]),
            ErrorCode.WRITE_REJECTED,
        ),
    ],
    ids=["bad-json", "extra-field", "17-claims", "3-chars", "length", "503", "unknown-target"],
)
def test_rejected_outputs_write_nothing_and_back_off(home: Path, model: FakeModelServer, reply, code) -> None:
    sid = capture(home)
    model.enqueue(reply)
    before = clock.now()
    outcome = consolidate_source(load_settings(), sid)
    assert outcome.status == "failed" and outcome.error_code == code.value
    source = source_state(home, sid)
    assert source.state == JobState.PENDING and source.consecutive_failures == 1
    assert source.last_error_code == code
    assert before + 59 <= source.next_due_at <= clock.now() + 61
    assert claim_count(home) == 0
    # Only the fixed code is stored: no model text, no key.
    raw = b"".join(p.read_bytes() for p in home.glob("memory.db*"))
    assert b"this is not json" not in raw and b"sk-testkey" not in raw


def test_hanging_server_ends_at_deadline_as_timeout(home: Path, model: FakeModelServer, monkeypatch) -> None:
    monkeypatch.setenv("MEMEVO_ATTEMPT_SECONDS", "1")
    monkeypatch.setenv("MEMEVO_FIRST_CALL_SECONDS", "1")  # the first call's own, longer deadline
    sid = capture(home)
    model.enqueue(Reply(hang=True))
    started = time.monotonic()
    outcome = consolidate_source(load_settings(), sid)
    assert time.monotonic() - started < 3
    assert outcome.error_code == "timeout"
    assert source_state(home, sid).last_error_code == ErrorCode.TIMEOUT


def test_budget_spent_waits_without_failure(home: Path, model: FakeModelServer, monkeypatch) -> None:
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_CALLS", "1")
    first, second = capture(home, "remember that alpha is first"), capture(home, "remember that beta is second")
    assert consolidate_source(load_settings(), first).status == "done"
    outcome = consolidate_source(load_settings(), second)
    assert outcome.status == "budget_spent" and outcome.next_due_at == clock.next_day_start(clock.now())
    source = source_state(home, second)
    assert source.state == JobState.PENDING and source.consecutive_failures == 0 and source.attempt == 0
    assert model.request_count == 1
    from tests.support.processes import memevo_process

    status = json.loads(memevo_process("status", "--json").stdout)
    assert status["worker"]["budget_spent"] is True and status["worker"]["budget_resets_at"]
    assert status["worker"]["model_calls_today"] == 1


def test_unconfigured_model_leaves_the_job_waiting_uncounted(home: Path, monkeypatch) -> None:
    sid = capture(home)
    outcome = consolidate_source(load_settings(), sid)
    assert outcome.status == "no_model" and outcome.error_code is None
    source = source_state(home, sid)
    assert (source.state, source.attempt, source.consecutive_failures) == (JobState.PENDING, 0, 0)


def test_failed_job_is_listed_by_status(home: Path, model: FakeModelServer) -> None:
    sid = capture(home)
    model.enqueue(Reply(content="{}"))
    consolidate_source(load_settings(), sid)
    from tests.support.processes import memevo_process

    report = json.loads(memevo_process("status", "--json").stdout)
    assert report["jobs"]["retrying"] == 1
    job = report["failed_jobs"][0]
    assert job["source_id"] == sid and job["failures"] == 1 and job["error_code"] == "invalid_output"
    assert job["next_due"]
    text = memevo_process("status").stdout
    assert f"failing {sid}" in text


@pytest.mark.sqlite_only  # a hook process; on PostgreSQL hooks go through the gateway (tests/hooks/test_gateway*)
def test_planted_secret_never_reaches_any_state_file(home: Path, model: FakeModelServer) -> None:
    secret = "sk-live0123456789abcdefghijklmnop"
    from tests.support.processes import memevo_process

    payload = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "cwd": ORIGIN,
        "summary": f"We configured the client with key {secret} and DB_PASSWORD=hunter2hunter2",
    }
    result = memevo_process("hook", "compaction", input=json.dumps(payload))
    assert result.returncode == 0, result.stderr
    outcome = consolidate_source(load_settings(), None)
    assert outcome.status == "done"
    assert claim_count(home) == 1  # the fake model echoed the (redacted) source into a claim
    for path in home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert secret.encode() not in data, path
            assert b"hunter2hunter2" not in data, path
