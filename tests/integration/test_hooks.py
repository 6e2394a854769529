"""Real hook processes reading stdin: capture, fail-open behaviour, clear errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.factories import worker_beating
from tests.support.processes import memevo_process

# hook processes open memory.db; on PostgreSQL they go through the gateway (tests/hooks/test_gateway*)
pytestmark = pytest.mark.sqlite_only


def hook(event: str, payload: object | str, env: dict[str, str] | None = None):
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return memevo_process("hook", event, input=data, env=env)


def base(event: str, **fields) -> dict:
    return {
        "schema": "memevo.hook/v1",
        "agent": "test-agent",
        "event": event,
        "session_id": "sess-1",
        "cwd": "/tmp",
        **fields,
    }


def sources(home: Path) -> list[tuple]:
    conn = sqlite3.connect(home / "memory.db")
    try:
        return conn.execute("SELECT source_type, state, origin FROM sources").fetchall()
    finally:
        conn.close()


def test_compaction_captures_one_source_even_when_sent_twice(home: Path) -> None:
    worker_beating(home)  # a worker runs: the capture nudges it
    payload = base("compaction", summary="Summary.\n- Decision: ship the CLI first")
    for _ in range(2):
        result = hook("compaction", payload)
        assert result.returncode == 0, result.stderr
        assert result.stdout == ""
    assert sources(home) == [("summary", "pending", "/tmp")]
    conn = sqlite3.connect(home / "memory.db")
    assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 1  # the labelled line
    conn.close()
    assert (home / "queue.db").exists()  # a nudge was enqueued


def test_turn_end_captures_explicit_cues_only(home: Path) -> None:
    result = hook(
        "turn_end", base("turn_end", user_messages=["fix the tests please", "remember that CI runs on 2 cores"])
    )
    assert result.returncode == 0, result.stderr
    assert sources(home) == [("user_statement", "pending", "/tmp")]
    hook("turn_end", base("turn_end", user_messages=["do you remember the CI cores?"]))
    assert len(sources(home)) == 1


def test_bad_input_fails_open_with_one_clear_line(home: Path) -> None:
    cases = [
        ("compaction", "not json at all", "not JSON"),
        ("compaction", "[1, 2]", "one JSON object"),
        ("compaction", json.dumps({"event": "compaction"}), "schema"),
        ("compaction", json.dumps(base("compaction")), "summary"),
        ("compaction", json.dumps(base("compaction", summary="x", extra=1)), "unknown field"),
        ("turn_end", json.dumps(base("compaction", summary="x")), "says event"),
        ("bogus", json.dumps(base("compaction")), "unknown hook event"),
        ("compaction", "", "empty"),
    ]
    for event, payload, expected in cases:
        result = hook(event, payload)
        assert result.returncode == 0, (event, payload)
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (payload, result.stderr)
        assert "Traceback" not in result.stderr
    log = (home / "logs" / "hooks.log").read_text()
    assert "not JSON" in log
    status = memevo_process("status", "--json")
    assert json.loads(status.stdout)["hook_errors"]


def test_hook_fails_open_on_broken_config_and_unwritable_store(home: Path, tmp_path: Path) -> None:
    # Capture needs only the state dir: a setting meant for the worker never costs the user
    # a captured source (`memevo status` and the worker report it).
    result = hook("compaction", base("compaction", summary="a summary"), env={"MEMEVO_ATTEMPT_SECONDS": "nope"})
    assert result.returncode == 0 and result.stderr == ""
    assert sources(home) == [("summary", "pending", "/tmp")]
    status = memevo_process("status", env={"MEMEVO_ATTEMPT_SECONDS": "nope"})
    assert status.returncode == 2 and "MEMEVO_ATTEMPT_SECONDS" in status.stderr
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    result = hook("compaction", base("compaction", summary="s"), env={"MEMEVO_HOME": str(blocker / "home")})
    assert result.returncode == 0
    assert len(result.stderr.strip().splitlines()) == 1
    assert "cannot create the state dir" in result.stderr


def test_session_start_is_quiet(home: Path) -> None:
    result = hook("session_start", base("session_start"))
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


def test_user_prompt_prints_a_bounded_digest_and_writes_nothing(home: Path) -> None:
    from memory_core import clock
    from memory_core.store.engines.database import Store
    from tests.factories import make_memory, seed

    claim = make_memory(
        "The staging PostgreSQL database listens on port 5433", origin="/work/app", at=clock.now() - 3600
    )
    with Store.open(home) as store:
        seed(store, claim)
    db_before = (home / "memory.db").read_bytes()
    result = hook("user_prompt", base("user_prompt", user_messages=["which port does the staging database use?"]))
    assert result.returncode == 0, result.stderr
    assert claim.id in result.stdout
    assert len(result.stdout.encode("utf-8")) <= 2048 + 1
    assert (home / "memory.db").read_bytes() == db_before
    explain = memevo_process("explain", "--json")
    assert explain.returncode == 0 and claim.id in explain.stdout
    assert claim.content not in explain.stdout  # diagnostics never carry memory bodies
    fresh = hook("user_prompt", base("user_prompt", user_messages=["continue"]))
    assert fresh.returncode == 0 and fresh.stdout == ""


def test_turn_end_feedback_message_applies_once(home: Path) -> None:
    from memory_core import clock
    from memory_core.store.engines.database import Store
    from memory_core.store.tables.memories import require_memory
    from tests.factories import make_memory, seed

    claim = make_memory("The docs site deploys from the gh-pages branch", at=clock.now() - 60)
    with Store.open(home) as store:
        seed(store, claim)
    payload = base("turn_end", user_messages=[f"memory {claim.id} is incorrect."])
    for _ in range(2):  # the same turn sent twice
        assert hook("turn_end", payload).returncode == 0
    with Store.open(home) as store:
        assert require_memory(store.conn, claim.id).status == "conflicted"
        assert store.conn.execute("SELECT COUNT(*) FROM events WHERE operation='feedback'").fetchone()[0] == 1
        assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0  # not learned as a statement
    unknown = hook("turn_end", base("turn_end", user_messages=[f"memory {'f' * 24} is useful."]))
    assert unknown.returncode == 0 and "feedback not applied" in unknown.stderr


def test_hook_command_line_mistakes_fail_open(home: Path) -> None:
    # Some agents read exit 2 as "block this turn": a bad hook line must not stop the agent.
    payload = json.dumps(base("compaction", summary="Decision: keep SQLite"))
    for args in (
        ("hook",),
        ("hook", "--agent", "claude", "compaction"),
        ("hook", "compaction", "extra"),
        ("hook", "--bogus", "compaction"),
    ):
        result = memevo_process(*args, input=payload)
        assert result.returncode == 0, (args, result.stderr)
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("memevo hook:"), (args, result.stderr)
    assert "No such option" in (home / "logs" / "hooks.log").read_text()


def test_hook_odd_input_is_bad_input_not_an_internal_error(home: Path) -> None:
    cases = [
        ("turn_end", "[" * 100_000, "nested too deeply"),
        ("compaction", json.dumps(base("compaction", summary="Fact: x is y", cwd="/tmp/\u0000x")), "NUL"),
        ("compaction", json.dumps(base("compaction", summary="\u200b\u0001 \u200b")), "summary"),
    ]
    for event, payload, expected in cases:
        result = hook(event, payload)
        assert result.returncode == 0
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0] and "internal error" not in lines[0], result.stderr
    assert "Traceback" not in (home / "logs" / "hooks.log").read_text()
