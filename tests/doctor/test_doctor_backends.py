"""`memevo doctor` on PostgreSQL and Redis: each way the server can be wrong named with its
fix (unreachable, login refused, no database, no role, no driver, a newer schema), the
queue on PostgresHuey and on a real Redis, the clock against the server's, the gateway; and
a password in a URL never printed, in text or --json."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from memory_core import clock
from memory_core.store.engines.database import Store
from tests.support import pg_cluster
from tests.support.memevo_serve import MemevoServe
from tests.support.memevo_worker import memevo_env
from tests.support.redis_server import binary as redis_binary
from tests.support.redis_server import redis_url  # noqa: F401  (a fixture)

SECRET = "hunter2-Zq9"


def doctor(*args: str) -> Result:
    from cli.main import cli

    return CliRunner().invoke(cli, ["doctor", *args], catch_exceptions=False)


def run_all(*args: str) -> tuple[dict[str, Any], str]:
    """doctor --json and doctor as text; the password is in neither."""
    data_run, text_run = doctor("--json", *args), doctor(*args)
    for output in (data_run.output, text_run.output):
        assert SECRET not in output
    return json.loads(data_run.stdout), text_run.output


def the_check(data: dict[str, Any], name: str) -> dict[str, Any]:
    [check] = [c for c in data["checks"] if c["name"] == name]
    return check


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def with_password(url: str, user: str | None = None, password: str = SECRET) -> str:
    """``url`` logging in as ``user`` (default: its own) with ``password``."""
    scheme, _, rest = url.partition("://")
    userinfo, _, hostpart = rest.partition("@")
    return f"{scheme}://{user or userinfo.split(':')[0]}:{password}@{hostpart}"


def test_unreachable_server(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    monkeypatch.setenv("MEMEVO_DATABASE_URL", f"postgresql://alice:{SECRET}@127.0.0.1:{port}/memevo")
    data, text = run_all()
    database = the_check(data, "database")
    assert database["status"] == "error" and database["details"]["problem"] == "unreachable"
    assert database["summary"].startswith("the server cannot be reached: cannot reach PostgreSQL at")
    assert database["fix"].startswith(f"pg_isready -h 127.0.0.1 -p {port}")
    assert f"postgresql://alice:********@127.0.0.1:{port}/memevo" in text
    queue = the_check(data, "queue")
    assert queue["status"] == "error" and queue["details"]["problem"] == "unreachable"
    assert the_check(data, "worker")["status"] == "warn"
    assert data["exit_code"] == 1


@pytest.mark.postgres_only
def test_database_that_does_not_exist(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    base = pg_url.split("?")[0].rsplit("/", 1)[0]
    monkeypatch.setenv("MEMEVO_DATABASE_URL", with_password(f"{base}/no_such_memevo_db"))
    data, _ = run_all()
    database = the_check(data, "database")
    assert database["details"]["problem"] == "no_database"
    assert database["summary"].startswith("the database does not exist:")
    assert "no_such_memevo_db" in database["summary"]
    assert database["fix"].startswith("createdb -h 127.0.0.1 -p ")
    assert database["fix"].split("#")[0].rstrip().endswith(" no_such_memevo_db")


@pytest.mark.postgres_only
def test_role_that_does_not_exist(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_DATABASE_URL", with_password(pg_url, user="nobody_here"))
    data, _ = run_all()
    database = the_check(data, "database")
    assert database["details"]["problem"] == "no_role", database
    assert database["summary"].startswith("the user (role) does not exist:")
    assert "createuser" in database["fix"] and "nobody_here" in database["fix"]


@pytest.mark.postgres_only
def test_driver_not_installed(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patched:
        patched.setitem(sys.modules, "psycopg", None)  # `import psycopg` now raises ImportError
        data, _ = run_all()
    database = the_check(data, "database")
    assert database["details"]["problem"] == "driver"
    assert database["fix"].startswith("pip install 'memevo[postgres]'")
    assert the_check(data, "queue")["fix"].startswith("pip install 'memevo[postgres]'")


@pytest.mark.postgres_only
def test_newer_schema_is_refused_with_the_upgrade(pg_url: str, home: Path) -> None:
    with Store.open(home) as store:
        store.set_meta("schema_version", "99")
    data, _ = run_all()
    database = the_check(data, "database")
    assert database["status"] == "error"
    assert "holds memevo schema version 99, written by a newer memevo" in database["summary"]
    assert database["fix"].startswith("pip install -U memevo")
    assert database["details"]["schema_version"] == 99
    from tests.support.processes import memevo_process

    status = memevo_process("status")
    assert status.returncode == 1 and "schema version 99" in status.stderr and "upgrade memevo" in status.stderr


@pytest.fixture
def password_cluster() -> Iterator[tuple[str, str]]:
    """A throwaway cluster where ``alice`` must log in with a password over TCP (memevo, the
    superuser, stays trusted): ``(url with the right password, database)``."""
    cluster, why = pg_cluster.start_cluster()
    if cluster is None:
        pg_cluster.skip_unless_required(f"cannot start a throwaway PostgreSQL to refuse a password: {why}")
    try:
        import psycopg

        with psycopg.connect(cluster.url, autocommit=True) as conn:
            conn.execute("CREATE ROLE alice LOGIN PASSWORD 'right-password'")
        hba = cluster.directory / "data" / "pg_hba.conf"
        hba.write_text(
            "local all all trust\nhost all memevo 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
            encoding="utf-8",
        )
        done = cluster._run(str(cluster.bindir / "pg_ctl"), "-D", str(cluster.directory / "data"), "reload")
        assert done.returncode == 0, done.stderr
        time.sleep(0.3)  # the postmaster rereads pg_hba.conf on SIGHUP
        yield with_password(cluster.url, user="alice", password="right-password"), "memevo_test"
    finally:
        cluster.stop()


@pytest.mark.slow
def test_refused_login(password_cluster: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.errors import StoreError
    from memory_core.store.engines import pg

    right, _ = password_cluster
    pg.connect(right).close()  # the right password logs in
    wrong = right.replace("right-password", SECRET)
    with pytest.raises(StoreError, match="refused the login") as refused:
        pg.connect(wrong)
    assert SECRET not in str(refused.value)
    monkeypatch.setenv("MEMEVO_DATABASE_URL", wrong)
    data, text = run_all()
    database = the_check(data, "database")
    assert database["details"]["problem"] == "login"
    assert database["summary"].startswith("the server refused the login:")
    assert "~/.pgpass" in database["fix"] and database["fix"].startswith("psql -h 127.0.0.1 -p ")
    assert "alice:********@" in text
    assert the_check(data, "queue")["details"]["problem"] == "login"


@pytest.mark.postgres_only
def test_postgres_queue_tables(pg_url: str, home: Path) -> None:
    from workers import app
    from workers.health import PG_TASK_TABLE, queue_health

    assert app.TABLE_PREFIX + "_task" == PG_TASK_TABLE
    before = queue_health(home)
    assert before["status"] == "ok" and "not created yet" in before["summary"]
    huey = app.make_huey(home)
    huey.storage.enqueue(b"nudge")
    after = queue_health(home)
    assert after["status"] == "ok" and after["details"]["pending"] == 1
    assert after["summary"].startswith("PostgresHuey in postgresql://")


@pytest.mark.postgres_only
def test_clock_skew(pg_url: str, monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    Store.open(home).close()
    offset = {"seconds": 0.0}
    monkeypatch.setattr(clock, "now", lambda: time.time() + offset["seconds"])
    data, _ = run_all()
    assert the_check(data, "clock")["status"] == "ok"
    offset["seconds"] = 6.0
    data, _ = run_all()
    skewed = the_check(data, "clock")
    assert skewed["status"] == "warn" and "ahead of the database server's" in skewed["summary"]
    assert skewed["fix"].startswith("timedatectl set-ntp true")
    offset["seconds"] = -120.0
    data, _ = run_all()
    far = the_check(data, "clock")
    assert far["status"] == "error" and "behind the database server's" in far["summary"]
    assert "leasing nothing" in far["summary"]


@pytest.mark.postgres_only
@pytest.mark.slow
def test_gateway(pg_url: str, home: Path, tmp_path: Path) -> None:
    Store.open(home).close()
    down = the_check(run_all()[0], "gateway")
    assert down["status"] == "warn" and down["fix"].startswith("memevo serve")
    env = memevo_env(home, MEMEVO_DATABASE_URL=pg_url)
    with MemevoServe(env, log=tmp_path / "serve.log") as server:
        up = the_check(run_all()[0], "gateway")
        assert up["status"] == "ok" and f"127.0.0.1:{server.port}" in up["summary"]


def test_sqlite_has_no_gateway_or_clock_check(home: Path, backend: str) -> None:
    data, _ = run_all()
    names = {c["name"] for c in data["checks"]}
    assert ("gateway" in names) == ("clock" in names) == (backend == "postgresql")


# Redis: a real redis-server on a free loopback port.


@pytest.mark.postgres_only
def test_redis_queue(redis_url: str, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from workers.health import redis_queue_check

    good = redis_queue_check(redis_url)
    assert good["status"] == "ok" and good["summary"].startswith(f"Redis at {redis_url}: answers")
    monkeypatch.setenv("MEMEVO_QUEUE_URL", redis_url)
    data, text = run_all()
    assert the_check(data, "queue")["status"] == "ok"
    port = free_port()
    gone = redis_queue_check(f"redis://:{SECRET}@127.0.0.1:{port}/0")
    assert gone["status"] == "error" and gone["details"]["problem"] == "unreachable"
    assert gone["fix"].startswith(f"redis-cli -h 127.0.0.1 -p {port} ping")
    assert SECRET not in json.dumps(gone)


@pytest.fixture
def redis_with_password(tmp_path: Path) -> Iterator[int]:
    exe = redis_binary()
    if exe is None:
        pg_cluster.skip_unless_required(
            "redis-server is not installed (apt-get install redis-server)", "MEMEVO_REQUIRE_REDIS"
        )
    port = free_port()
    process = subprocess.Popen(
        [exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--requirepass", "right-password"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None, "redis-server did not start"
                time.sleep(0.02)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_redis_login(redis_with_password: int) -> None:
    from workers.health import redis_queue_check

    port = redis_with_password
    assert redis_queue_check(f"redis://:right-password@127.0.0.1:{port}/0")["status"] == "ok"
    wrong = redis_queue_check(f"redis://:{SECRET}@127.0.0.1:{port}/0")
    assert wrong["status"] == "error" and wrong["details"]["problem"] == "login"
    assert "refused the login" in wrong["summary"] and "MEMEVO_QUEUE_URL" in wrong["fix"]
    none = redis_queue_check(f"redis://127.0.0.1:{port}/0")
    assert none["details"]["problem"] == "no_password" and "wants a password" in none["summary"]
    for check in (wrong, none):
        assert SECRET not in json.dumps(check)
