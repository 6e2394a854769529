"""`memevo doctor`: each check healthy and broken, the fix it prints, --json and exit codes."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cli.install.actions import install
from cli.install.claude_code import TARGET
from memory_core import clock
from memory_core.jobs.heartbeat import write_heartbeat
from memory_core.jobs.model_state import remembered_json_mode
from memory_core.store.engines.database import Store
from tests.install.support import EVENTS, INSTALLED_MEMEVO, ClaudeSandbox, needs_installed_memevo, write_hooks
from tests.support.fake_model import FakeModelServer, Reply

NOW = 1_800_000_000.0


def server_now(url: str) -> float:
    import psycopg

    with psycopg.connect(url) as conn:
        return float(conn.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())").fetchone()[0])


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    """The clock stands still at NOW; on PostgreSQL NOW is the server's time when the test
    starts, so doctor's clock check sees this machine within the test's own duration."""
    import sys

    now = NOW if backend == "sqlite" else float(int(server_now(os.environ["MEMEVO_DATABASE_URL"])))
    monkeypatch.setattr(sys.modules[__name__], "NOW", now)
    monkeypatch.setattr(clock, "now", lambda: now)


def doctor(*args: str) -> Result:
    from cli.main import cli

    return CliRunner().invoke(cli, ["doctor", *args], catch_exceptions=False)


def report(*args: str) -> tuple[int, dict[str, Any]]:
    result = doctor("--json", *args)
    return result.exit_code, json.loads(result.stdout)


def checks_named(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [check for check in data["checks"] if check["name"] == name]


def the_check(data: dict[str, Any], name: str) -> dict[str, Any]:
    [check] = checks_named(data, name)
    return check


def install_user_hooks() -> None:
    install(TARGET, "user", project_dir=Path.cwd(), dry_run=False, now=NOW)


def heartbeat(home: Path, at: float) -> None:
    with Store.open(home) as store:
        with store.transaction() as conn:
            write_heartbeat(conn, at)


@pytest.fixture
def healthy(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Hooks installed, worker alive, model configured, database fine."""
    install_user_hooks()
    heartbeat(home, NOW - 30)
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "tiny")
    return home


def test_healthy(healthy: Path, backend: str) -> None:
    on_pg = backend == "postgresql"
    if on_pg:  # the gateway is checked on its own (test_doctor_backends.py); here it is down
        (healthy / "hook-token").write_text("t" * 64, encoding="utf-8")
    code, data = report()
    assert code == 0
    assert data["ok"] is True and data["errors"] == 0 and data["warnings"] == (1 if on_pg else 0)
    assert [c["name"] for c in data["checks"]] == [
        "claude-code",
        "codex",
        "gemini",
        "pi",
        "mcp",  # registered
        "mcp",  # `memevo mcp` answers
        "worker",
        "model",
        "database",
        *(["clock", "gateway"] if on_pg else []),
        "queue",
        "hook log",
        "budget",
    ]
    assert all(c["status"] == "ok" and c["fix"] is None for c in data["checks"] if c["name"] != "gateway")
    if on_pg:
        assert the_check(data, "gateway")["status"] == "warn"
        assert the_check(data, "database")["summary"].startswith("PostgreSQL postgresql://memevo@")
        assert the_check(data, "queue")["summary"].startswith("PostgresHuey in postgresql://")
    assert "running (heartbeat 30 s ago)" == the_check(data, "worker")["summary"]
    text = doctor()
    assert text.exit_code == 0
    if not on_pg:
        assert text.output.rstrip().endswith("everything looks right") and "fix:" not in text.output


def test_json_shape(healthy: Path) -> None:
    code, data = report()
    assert set(data) == {"state_dir", "status", "ok", "errors", "warnings", "exit_code", "checks"}
    assert data["state_dir"] == str(healthy) and data["exit_code"] == code == 0
    for check in data["checks"]:
        assert set(check) == {"name", "status", "summary", "fix", "details"}
        assert check["status"] in ("ok", "warn", "error")
    agent = the_check(data, "claude-code")["details"]["scopes"]
    assert [s["scope"] for s in agent] == ["user", "project", "local"]
    assert agent[0]["events"] == list(EVENTS) and agent[0]["commands"][0]["problem"] is None


def test_fresh_state_is_not_created(home: Path) -> None:
    code, data = report()
    assert not home.exists()  # no state dir, no memory.db, no queue.db
    assert code == 1  # worker never ran, no model
    assert "no memory yet" in the_check(data, "database")["summary"]
    assert the_check(data, "database")["status"] == "ok"
    assert the_check(data, "queue")["status"] == "ok"
    worker = the_check(data, "worker")
    assert worker["status"] == "error" and worker["fix"] == "memevo worker"


def test_no_hooks_is_a_warning_with_the_install_command(healthy: Path, claude: ClaudeSandbox, backend: str) -> None:
    claude.user_settings.unlink()
    code, data = report()
    check = the_check(data, "claude-code")
    assert check["status"] == "ok" and check["details"]["installed"] is False
    assert "memevo install claude-code" in check["summary"]
    nothing = the_check(data, "agents")
    assert nothing["status"] == "warn" and nothing["fix"].startswith("memevo install claude-code")
    warnings = 1 if backend == "sqlite" else 2  # on PostgreSQL no gateway runs here either
    assert code == 0 and data["status"] == "warn" and data["warnings"] == warnings
    text = doctor()
    assert "fix: memevo install claude-code" in text.output
    assert f"no problems, {warnings} warning(s)" in text.output


def test_hooks_pointing_at_a_missing_memevo(healthy: Path, claude: ClaudeSandbox, tmp_path: Path) -> None:
    gone = tmp_path / "removed-venv" / "bin" / "memevo"
    write_hooks(claude.project_settings, {event: f"{gone} hook --agent claude-code" for event in EVENTS})
    code, data = report()
    [broken] = [c for c in checks_named(data, "claude-code") if c["status"] == "error"]
    assert f"{gone} does not exist" in broken["summary"]
    assert broken["fix"] == "memevo install claude-code --scope project"
    assert code == 1 and data["ok"] is False
    # installed twice (user and project): a warning naming the extra scope to remove
    [twice] = [c for c in checks_named(data, "claude-code") if c["status"] == "warn"]
    assert twice["fix"] == "memevo uninstall claude-code --scope project"
    text = doctor()
    assert text.exit_code == 1 and "ERROR  claude-code" in text.output
    assert "fix: memevo install claude-code --scope project" in text.output


def test_partial_install_is_a_warning(healthy: Path, claude: ClaudeSandbox) -> None:
    write_hooks(claude.user_settings, {"Stop": f"{INSTALLED_MEMEVO} hook --agent claude-code"})
    code, data = report()
    check = the_check(data, "claude-code")
    assert check["status"] == "warn" and "lack SessionStart" in check["summary"]
    assert check["fix"] == "memevo install claude-code --scope user"
    assert code == 0


def test_hooks_switched_off_in_settings(healthy: Path, claude: ClaudeSandbox) -> None:
    claude.local_settings.parent.mkdir(parents=True)
    claude.local_settings.write_text('{"disableAllHooks": true}', encoding="utf-8")
    code, data = report()
    [off] = checks_named(data, "claude-code")
    assert off["status"] == "error" and "disableAllHooks" in off["summary"]
    assert str(claude.local_settings) in off["fix"]
    assert code == 1


def test_unreadable_settings_file(healthy: Path, claude: ClaudeSandbox) -> None:
    claude.local_settings.parent.mkdir(parents=True)
    claude.local_settings.write_bytes(b"{oops")
    code, data = report()
    [bad] = [c for c in checks_named(data, "claude-code") if c["status"] == "error"]
    assert "is not valid JSON" in bad["summary"] and str(claude.local_settings) in bad["fix"]
    assert any(c["status"] == "ok" for c in checks_named(data, "claude-code"))  # user scope still reported
    assert code == 1
    assert claude.local_settings.read_bytes() == b"{oops"


def test_stale_heartbeat(healthy: Path) -> None:
    heartbeat(healthy, NOW - 3 * 3600)
    code, data = report()
    worker = the_check(data, "worker")
    assert worker["status"] == "error" and worker["summary"].startswith("not running: last heartbeat 3 h ago")
    assert worker["fix"] == "memevo worker" and worker["details"]["age_seconds"] == 3 * 3600
    assert code == 1
    assert "fix: memevo worker" in doctor().output


def test_no_model_configured(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_MODEL_URL")
    code, data = report("--check-model")
    model = the_check(data, "model")
    assert model["status"] == "error" and "MEMEVO_MODEL_URL" in model["summary"]
    assert model["fix"] == "export MEMEVO_MODEL_URL=http://127.0.0.1:8000/v1"
    assert not checks_named(data, "model call")  # nothing to call
    assert code == 1


def test_no_model_at_all_names_learning_with_the_agents_login(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_MODEL_URL")
    monkeypatch.delenv("MEMEVO_MODEL")
    model = the_check(report()[1], "model")
    assert model["status"] == "error" and model["fix"].startswith("memevo install AGENT --learn")


def test_invalid_settings_still_run_the_other_checks(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_ATTEMPT_SECONDS", "soon")
    code, data = report()
    model = the_check(data, "model")
    assert model["status"] == "error" and "MEMEVO_ATTEMPT_SECONDS" in model["summary"]
    assert the_check(data, "worker")["status"] == "ok"
    assert code == 1


@pytest.mark.sqlite_only
def test_corrupt_database(healthy: Path) -> None:
    db = healthy / "memory.db"
    for sidecar in ("memory.db-wal", "memory.db-shm"):
        (healthy / sidecar).unlink(missing_ok=True)
    db.write_bytes(b"this is not an sqlite database" * 100)
    code, data = report()
    database = the_check(data, "database")
    assert database["status"] == "error" and "memory.db is damaged (file is not a database)" in database["summary"]
    assert "backups/ holds no copy that passes its check" in database["summary"]
    assert database["fix"].startswith(f"mv {db} {db}.broken")
    assert the_check(data, "worker")["status"] == "warn"
    assert code == 1
    assert db.read_bytes() == b"this is not an sqlite database" * 100


def test_damaged_rows_are_reported_like_status_does(healthy: Path) -> None:
    with Store.open(healthy) as store:
        with store.transaction() as conn:
            conn.execute("INSERT INTO feedback_receipts VALUES ('src', 'not-an-id', 'meh', 1.0)")
    code, data = report()
    database = the_check(data, "database")
    assert database["status"] == "error" and "1 corrupt rows" in database["summary"]
    assert database["fix"].startswith("memevo status")
    assert database["details"]["integrity"]["corrupt_rows"][0]["table"] == "feedback_receipts"
    assert code == 1


@pytest.mark.sqlite_only
def test_unreadable_database(healthy: Path) -> None:
    # A directory where the database file should be cannot be opened by anyone (root included,
    # who reads files whatever their mode).
    (healthy / "memory.db").unlink()
    for sidecar in ("memory.db-wal", "memory.db-shm"):
        (healthy / sidecar).unlink(missing_ok=True)
    (healthy / "memory.db").mkdir()
    code, data = report()
    assert the_check(data, "database")["status"] == "error" and code == 1


def test_recent_hook_errors_are_a_warning(healthy: Path) -> None:
    logs = healthy / "logs"
    logs.mkdir()
    (logs / "hooks.log").write_text(
        f"{clock.iso(NOW - 3 * 86_400)} session_start: an old failure\n"
        f"{clock.iso(NOW - 600)} turn_end: hook input is not JSON\n"
        "Traceback (most recent call last):\n"
        f"{clock.iso(NOW - 60)} user_prompt: internal error\n",
        encoding="utf-8",
    )
    code, data = report()
    check = the_check(data, "hook log")
    assert check["status"] == "warn"
    assert check["details"]["lines"] == [
        f"{clock.iso(NOW - 600)} turn_end: hook input is not JSON",
        f"{clock.iso(NOW - 60)} user_prompt: internal error",
    ]
    assert check["fix"] == f"tail -n 40 {logs / 'hooks.log'}"
    assert "user_prompt: internal error" in check["summary"]
    assert code == 0


def test_only_old_hook_errors_are_fine(healthy: Path) -> None:
    (healthy / "logs").mkdir()
    (healthy / "logs" / "hooks.log").write_text(f"{clock.iso(NOW - 2 * 86_400)} stop: old\n", encoding="utf-8")
    assert the_check(report()[1], "hook log")["status"] == "ok"


@pytest.mark.sqlite_only
def test_queue_check(home: Path) -> None:
    from workers.health import queue_check

    queue = home / "queue.db"
    assert queue_check(queue)["status"] == "ok" and not home.exists()
    home.mkdir()
    conn = sqlite3.connect(queue)
    conn.execute(
        "create table task (id integer not null primary key, queue text not null, data blob not null, "
        "priority real not null default 0.0)"
    )
    conn.execute("insert into task (queue, data) values ('memevo', x'00'), ('memevo', x'01'), ('other', x'02')")
    conn.commit()
    conn.close()
    before = queue.read_bytes()
    check = queue_check(queue)
    assert check["status"] == "ok" and check["details"]["pending"] == 2
    assert queue.read_bytes() == before
    queue.write_bytes(b"garbage" * 1000)
    broken = queue_check(queue)
    assert broken["status"] == "error" and broken["fix"].startswith(f"mv {queue} {queue}.broken")


def test_check_model_reachable(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer() as server:
        monkeypatch.setenv("MEMEVO_MODEL_URL", server.base_url)
        code, data = report("--check-model")
        assert server.request_count == 1
        assert server.requests[0]["max_tokens"] == 16
        server.enqueue(Reply(finish_reason="length"))  # cut short still means it answered
        again = report("--check-model")[1]
    call = the_check(data, "model call")
    assert call["status"] == "ok" and call["summary"].startswith("tiny answered in")
    assert the_check(again, "model call")["status"] == "ok"
    assert code == 0
    assert not (healthy / "logs").exists()  # nothing recorded


@pytest.mark.parametrize(
    ("behaviour", "mode"),
    [(None, "schema"), ("llama-cpp-python", "object_schema"), ("old-vllm", "guided_json"), ("lm-studio", "schema")],
)
def test_check_model_says_which_json_mode_the_server_accepted(
    healthy: Path, monkeypatch: pytest.MonkeyPatch, behaviour: str | None, mode: str
) -> None:
    with FakeModelServer(behave_like=behaviour) as server:
        monkeypatch.setenv("MEMEVO_MODEL_URL", server.base_url)
        code, data = report("--check-model")
    call = the_check(data, "model call")
    assert code == 0 and call["status"] == "ok" and call["details"]["json_mode"] == mode
    assert f"JSON mode {mode}:" in call["summary"]
    with Store.open(healthy) as store:  # doctor writes nothing: the worker finds out for itself
        assert remembered_json_mode(store.conn, server.base_url, "tiny") is None


def test_check_model_with_a_fixed_json_mode_sends_only_that(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_JSON_MODE", "schema")
    with FakeModelServer(behave_like="llama-cpp-python") as server:
        monkeypatch.setenv("MEMEVO_MODEL_URL", server.base_url)
        code, data = report("--check-model")
        assert server.request_count == 1
    call = the_check(data, "model call")
    assert code == 1 and call["status"] == "error" and "HTTP 500" in call["summary"]


def test_check_model_unreachable(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("MEMEVO_MODEL_URL", f"http://127.0.0.1:{port}/v1")
    code, data = report("--check-model")
    call = the_check(data, "model call")
    assert call["status"] == "error" and call["details"]["error_code"] == "unavailable"
    assert call["fix"].startswith(f"curl -sS http://127.0.0.1:{port}/v1/models")
    assert code == 1
    assert call["details"]["seconds"] < 5


def test_check_model_refused_request(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer([Reply(status=401)]) as server:
        monkeypatch.setenv("MEMEVO_MODEL_URL", server.base_url)
        code, data = report("--check-model")
    call = the_check(data, "model call")
    assert call["status"] == "error" and "HTTP 401" in call["summary"]
    assert "MEMEVO_MODEL_API_KEY" in call["fix"]
    assert code == 1


@needs_installed_memevo
def test_real_process(healthy: Path, claude: ClaudeSandbox) -> None:
    env = {**os.environ, **claude.env()}
    done = subprocess.run(
        [str(INSTALLED_MEMEVO), "doctor", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(claude.project),
        timeout=60,
    )
    data = json.loads(done.stdout)
    # a real clock in that process, so only the exit code's agreement with the report is asserted
    assert done.returncode == data["exit_code"]
    assert the_check(data, "claude-code")["status"] == "ok"
    assert {c["name"] for c in data["checks"]} >= {"worker", "model", "database", "queue", "hook log"}
    assert done.stderr == ""
