"""The real thing: huey_consumer with process workers, producer processes, a loopback model
server in its own process, SIGKILL of the consumer's process group. On PostgreSQL also two
consumers (two machines) sharing PostgresHuey or RedisHuey."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.processes import REPO, memevo_process
from tests.support.redis_server import redis_url  # noqa: F401  (fixture)

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
    if not os.environ.get("MEMEVO_DATABASE_URL") and not (home / "memory.db").exists():
        return []
    with Store.open_readonly(home) as store:
        return [
            tuple(row)
            for row in store.conn.execute(
                "SELECT id, state, consecutive_failures, last_error_code, attempt FROM sources"
            ).fetchall()
        ]


def claim_bodies(home: Path) -> list[dict]:
    with Store.open_readonly(home) as store:
        return [json.loads(body) for (body,) in store.conn.execute("SELECT body FROM memories").fetchall()]


def integrity_ok(home: Path) -> bool:
    """SQLite's own check on SQLite (PostgreSQL has none to run), memevo's row checks on both."""
    from memory_core.store.schema.integrity import check_integrity

    with Store.open_readonly(home) as store:
        if store.backend.is_sqlite and store.conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            return False
        return bool(check_integrity(store.conn)["ok"])


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
    # The hook's own handling in a process of its own (on PostgreSQL a hook command would go
    # through memevo serve, which these tests do not run).
    code = (
        "import sys\nfrom cli.hooks.dispatch import handle_event\nfrom cli.hooks.event import HookEvent\n"
        "from memory_core import clock\nfrom memory_core.paths import state_home\n"
        "handle_event(HookEvent(agent='generic', event='compaction', session_id=sys.argv[1][:8], cwd='/tmp', "
        "summary=sys.argv[1]), state_home(), clock.now())"
    )
    produced = subprocess.run([sys.executable, "-c", code, summary], cwd=REPO, env=env, capture_output=True, text=True)
    assert produced.returncode == 0, produced.stderr
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
    contents = [body["content"] for body in claim_bodies(home)]
    assert integrity_ok(home)
    for tag in "abcd":
        for i in range(50):
            assert any(f"service {tag}{i} runs" in c for c in contents), (tag, i)
    assert len(contents) == 200


def test_sigkill_mid_request_then_restart_completes_once(home: Path, tmp_path: Path, env_for) -> None:
    make_env, procs = env_for
    with FakeModelProcess(tmp_path, [Reply(hang=True)]) as model:
        # A lease of 2 s + 1 s (the first call's too), so recovery can take it over quickly after the kill.
        env = make_env(model, MEMEVO_ATTEMPT_SECONDS="2", MEMEVO_FIRST_CALL_SECONDS="2", MEMEVO_LEASE_GRACE_SECONDS="1")
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
    assert sum(1 for body in claim_bodies(home) if body.get("source_id") == sid) == 1


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


# A producer process: captures stored through the store, each nudged inside its capture's
# transaction where the queue is in the store's database, else right after the commit.
SHARED_PRODUCER = r"""
import sys
from cli.nudge import nudge_consolidate, nudge_consolidate_in
from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.paths import state_home
from memory_core.store.engines.database import Store

tag, n = sys.argv[1], int(sys.argv[2])
in_transaction = 0
with Store.open(state_home()) as store:
    for i in range(n):
        with store.transaction() as conn:
            result = capture_source(conn, source_type="summary", origin="/tmp", session_id=f"{tag}-{i}",
                                    text=f"Host {tag} learned item {i}: service {tag}{i} runs on port {3000 + i}",
                                    now=clock.now())
            queued = nudge_consolidate_in(conn, result.source_id)
        in_transaction += queued
        if not queued:
            assert nudge_consolidate(result.source_id)
print(in_transaction)
"""


@pytest.mark.postgres_only
@pytest.mark.parametrize("queue", ["postgres", "redis"])
def test_two_consumers_share_the_queue_and_apply_each_source_once(
    home: Path, tmp_path: Path, env_for, queue: str, request: pytest.FixtureRequest
) -> None:
    make_env, procs = env_for
    extra = {}
    if queue == "redis":
        url = request.getfixturevalue("redis_url")
        import redis

        redis.Redis.from_url(url).flushdb()
        extra["MEMEVO_QUEUE_URL"] = url
    per_host, hosts = 30, ("laptop", "devbox")
    Store.open(home).close()  # the store exists before either machine starts (memevo status does it)
    with FakeModelProcess(tmp_path, default_delay=0.05) as model:
        env = make_env(model, **extra)
        # Two consumers, standing in for two machines, two worker processes each.
        for host in hosts:
            procs.append(start_consumer(env, tmp_path / f"consumer-{host}.log"))
        producers = [
            subprocess.Popen(
                [sys.executable, "-c", SHARED_PRODUCER, host, str(per_host)],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for host in hosts
        ]
        in_transaction = 0
        for producer in producers:
            out, err = producer.communicate(timeout=120)
            assert producer.returncode == 0, err.decode()
            in_transaction += int(out)
        total = per_host * len(hosts)
        wait_for(
            lambda: len(source_rows(home)) == total and all(r[1] == "done" for r in source_rows(home)),
            120,
            f"all {total} sources done",
        )
        time.sleep(1.5)  # a duplicate nudge still queued would show up as an extra request
        requests = model.request_count()
        for proc in procs:
            kill_group(proc, signal.SIGTERM)
    # In the capture's transaction once a consumer has made huey's tables (the first few
    # captures may come before that and are nudged after their commit instead).
    assert in_transaction > total // 2 if queue == "postgres" else in_transaction == 0
    rows = source_rows(home)
    assert requests == total  # model calls per source: 1.0
    assert all(r[2] == 0 and r[4] == 1 for r in rows)  # one lease each, no lost race, no failure
    per_source: dict[str, int] = {}
    for body in claim_bodies(home):
        per_source[body["source_id"]] = per_source.get(body["source_id"], 0) + 1
    assert sorted(per_source) == sorted(r[0] for r in rows) and set(per_source.values()) == {1}
    assert integrity_ok(home)
    with Store.open_readonly(home) as store:
        from memory_core.jobs.heartbeat import worker_beats

        beats = worker_beats(store.conn)
    assert len(beats) >= 4  # every worker process of both consumers beat
    logs = "".join((tmp_path / f"consumer-{host}.log").read_text(errors="replace") for host in hosts)
    assert not unexpected_tracebacks(logs), logs[-3000:]


def unexpected_tracebacks(log: str) -> list[str]:
    """The tracebacks in a consumer log, but for a queue connection the database server's
    administrator ended (``AdminShutdown``: on CI's shared server another test may end its
    own backends while this one runs; huey logs it and goes on, and what this test promises,
    each source applied once, is asserted above)."""
    blocks = log.split("Traceback (most recent call last):")[1:]
    return [block for block in blocks if "psycopg.errors.AdminShutdown" not in block.split("\n[", 1)[0]]


def test_a_worker_against_llama_cpp_python_learns_and_warms_up(home: Path, tmp_path: Path, env_for) -> None:
    # The server of issue 37 in a process of its own: HTTP 500 to a json_schema response
    # format, and a first answer that takes longer than MEMEVO_ATTEMPT_SECONDS (a cold
    # prompt cache). The worker settles on llama.cpp's spelling within the first attempt,
    # lets the first call take MEMEVO_FIRST_CALL_SECONDS, and remembers the mode for the next.
    make_env, procs = env_for
    with FakeModelProcess(tmp_path, [Reply(delay=3)], behave_like="llama-cpp-python") as model:
        env = make_env(model, MEMEVO_ATTEMPT_SECONDS="2", MEMEVO_FIRST_CALL_SECONDS="20")
        consumer = start_consumer(env, tmp_path / "consumer.log")
        procs.append(consumer)
        # Each statement captured by the hook's own handling in a process of its own (on
        # PostgreSQL a hook command would go through memevo serve, which these tests do not run).
        code = (
            "import sys\nfrom cli.hooks.dispatch import handle_event\nfrom cli.hooks.event import HookEvent\n"
            "from memory_core import clock\nfrom memory_core.paths import state_home\n"
            "handle_event(HookEvent(agent='generic', event='turn_end', session_id=sys.argv[2], cwd='/tmp', "
            "user_messages=(sys.argv[1],)), state_home(), clock.now())"
        )
        for session, text in enumerate(
            ("remember that the staging database listens on port 6543", "记住：生产日志保留 14 天")
        ):
            produced = subprocess.run(
                [sys.executable, "-c", code, text, f"s{session}"], cwd=REPO, env=env, capture_output=True, text=True
            )
            assert produced.returncode == 0, produced.stderr
            wait_for(lambda: all(r[1] == "done" for r in source_rows(home)), 60, "the source to be learned")
        kill_group(consumer, signal.SIGTERM)
        kinds = [(r.get("response_format") or {}).get("type") for r in model.requests()]
        schemas = ["schema" in (r.get("response_format") or {}) for r in model.requests()]
    assert kinds == ["json_schema", "json_object", "json_object"] and schemas == [False, True, True]
    assert [(r[2], r[4]) for r in source_rows(home)] == [(0, 1), (0, 1)]  # one attempt each, no failure
    assert len(claim_bodies(home)) == 2
