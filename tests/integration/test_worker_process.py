"""The real thing: huey_consumer with process workers, producer processes, a loopback model
server in its own process, SIGKILL of the consumer's process group."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.processes import REPO, memevo_process

pytestmark = pytest.mark.slow

PRODUCER = r"""
import sys
from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent
from memory_core import clock
from memory_core.paths import state_home

tag, n = sys.argv[1], int(sys.argv[2])
home = state_home()
for i in range(n):
    event = HookEvent(agent="producer", event="compaction", session_id=f"{tag}-{i}", cwd="/tmp",
                      summary=f"Producer {tag} learned item {i}: service {tag}{i} runs on port {1000 + i}")
    handle_event(event, home, clock.now())
print("ok")
"""


def consumer_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("huey_consumer")
    # -m 0.5: poll at least twice a second so the test does not wait on idle back-off.
    return [str(exe), "workers.main.huey", "-k", "process", "-w", "2", "-g", "TERM", "-t", "3", "-m", "0.5"]


def start_consumer(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    handle = open(log, "ab")
    return subprocess.Popen(
        consumer_cmd(), cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )


def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def source_rows(home: Path) -> list[tuple]:
    conn = sqlite3.connect(home / "memory.db", timeout=30)
    try:
        return conn.execute("SELECT id, state, consecutive_failures, last_error_code, attempt FROM sources").fetchall()
    finally:
        conn.close()


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def capture_until_in_flight(
    env: dict[str, str], model: FakeModelProcess, tmp_path: Path, summary: str, procs: list[subprocess.Popen[bytes]]
) -> subprocess.Popen[bytes]:
    """Start a consumer, capture one summary through a real hook, wait for its model call."""
    consumer = start_consumer(env, tmp_path / "consumer.log")
    procs.append(consumer)  # cleaned up by the fixture even if what follows fails
    payload = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "cwd": "/tmp",
        "session_id": summary[:8],
        "summary": summary,
    }
    assert memevo_process("hook", "compaction", input=json.dumps(payload), env=env).returncode == 0
    wait_for(lambda: model.request_count() == 1, 30, "the request to be in flight")
    return consumer


@pytest.fixture
def env_for(home: Path) -> Iterator:
    procs: list[subprocess.Popen[bytes]] = []

    def make(model: FakeModelProcess, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "MEMEVO_HOME": str(home),
                "MEMEVO_MODEL_URL": model.base_url,
                "MEMEVO_MODEL": "fake",
                "PYTHONPATH": str(REPO),
            }
        )
        env.update(extra)
        return env

    yield make, procs
    for proc in procs:
        if proc.poll() is None:
            kill_group(proc)


def test_200_sources_from_4_producers_consolidated_exactly_once(home: Path, tmp_path: Path, env_for) -> None:
    make_env, procs = env_for
    with FakeModelProcess(tmp_path) as model:
        env = make_env(model)
        consumer = start_consumer(env, tmp_path / "consumer.log")
        procs.append(consumer)
        producers = [
            subprocess.Popen(
                [sys.executable, "-c", PRODUCER, tag, "50"],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for tag in ("a", "b", "c", "d")
        ]
        for producer in producers:
            out, err = producer.communicate(timeout=120)
            assert producer.returncode == 0, err.decode()
        wait_for(
            lambda: len(source_rows(home)) == 200 and all(r[1] == "done" for r in source_rows(home)),
            180,
            "all 200 sources done",
        )
        time.sleep(1.5)  # any duplicate nudge still in the queue would show up as an extra request
        assert model.request_count() == 200
        kill_group(consumer, signal.SIGTERM)
    rows = source_rows(home)
    assert all(r[2] == 0 and r[4] == 1 for r in rows)  # one attempt each, no failures
    conn = sqlite3.connect(home / "memory.db")
    contents = [json.loads(b)["content"] for (b,) in conn.execute("SELECT body FROM memories")]
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    for tag in "abcd":
        for i in range(50):
            assert any(f"service {tag}{i} runs" in c for c in contents), (tag, i)
    assert len(contents) == 200


def test_sigkill_mid_request_then_restart_completes_once(home: Path, tmp_path: Path, env_for) -> None:
    make_env, procs = env_for
    with FakeModelProcess(tmp_path, [Reply(hang=True)]) as model:
        # A lease of 2 s + 1 s, so recovery can take it over quickly after the kill.
        env = make_env(model, MEMEVO_ATTEMPT_SECONDS="2", MEMEVO_LEASE_GRACE_SECONDS="1")
        consumer = capture_until_in_flight(env, model, tmp_path, "The release branch is cut every Tuesday", procs)
        kill_group(consumer)  # SIGKILL the whole group mid-request
        [(sid, state, failures, _, attempt)] = source_rows(home)
        assert state == "leased" and failures == 0 and attempt == 1
        time.sleep(3.2)  # the lease (2 s + 1 s) expires
        consumer = start_consumer(env, tmp_path / "consumer.log")
        procs.append(consumer)
        wait_for(lambda: source_rows(home)[0][3] == "interrupted", 30, "start-up recovery")
        [(_, state, failures, code, attempt)] = source_rows(home)
        assert (state, failures, code, attempt) == ("pending", 1, "interrupted", 1)
        result = memevo_process("evolve", "--source", sid, "--wait", "30", "--json", env=env)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["status"] == "done"
        kill_group(consumer, signal.SIGTERM)
        assert model.request_count() == 2
    [(_, state, failures, code, attempt)] = source_rows(home)
    assert (state, failures, code, attempt) == ("done", 0, None, 2)
    conn = sqlite3.connect(home / "memory.db")
    assert (
        conn.execute("SELECT COUNT(*) FROM memories WHERE json_extract(body, '$.source_id')=?", (sid,)).fetchone()[0]
        == 1
    )
    conn.close()


def test_graceful_stop_hands_in_flight_job_back_uncounted(home: Path, tmp_path: Path, env_for) -> None:
    make_env, procs = env_for
    with FakeModelProcess(tmp_path, [Reply(hang=True)]) as model:
        env = make_env(model, MEMEVO_ATTEMPT_SECONDS="60")
        consumer = capture_until_in_flight(env, model, tmp_path, "The staging cluster was rebuilt on Monday", procs)
        started = time.monotonic()
        kill_group(consumer, signal.SIGTERM)  # graceful: -t 3 then the attempt is interrupted
        assert time.monotonic() - started < 15
    [(_, state, failures, code, attempt)] = source_rows(home)
    assert (state, failures, code, attempt) == ("pending", 0, None, 1)
