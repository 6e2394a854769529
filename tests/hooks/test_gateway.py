"""The gateway: on a PostgreSQL store every ``memevo hook`` goes through ``memevo serve``.

Real processes throughout: ``memevo serve`` on a PostgreSQL store (a fresh schema of the test
database), ``memevo hook`` as an agent runs it, and the same hook on a SQLite state dir with
the same claims to compare against. With the gateway stopped, recall prints nothing at once
and captures are spooled, then delivered exactly once when serve is back.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.hooks import gateway_client, spool
from cli.hooks.entry import ADAPTER_NAMES, log_failure
from memory_core import clock
from tests.hooks import claude_data
from tests.hooks.support import hook_process
from tests.support.memevo_serve import MemevoServe
from tests.support.memevo_worker import memevo_env

pytestmark = [pytest.mark.postgres_only, pytest.mark.slow]

CLAIM = "The staging PostgreSQL database listens on port 5433"
QUESTION = "which port does the staging database use?"
SAID = "remember that the deploy needs node 22 on the staging runners"
SAID_RAW = json.dumps(
    {"schema": "memevo.hook/v1", "event": "turn_end", "cwd": "/work/app", "session_id": "gw", "user_messages": [SAID]}
).encode()


def generic(event: str, **fields: Any) -> dict[str, Any]:
    return {"schema": "memevo.hook/v1", "event": event, "cwd": "/work/app", "session_id": "gw", **fields}


def seed_claim(home: Path, at: float) -> None:
    from memory_core.store.engines.database import Store
    from tests.factories import make_memory, seed

    with Store.open(home) as store:
        seed(store, make_memory(CLAIM, origin="/work/app", at=at))


def pg_sources(home: Path) -> list[tuple[str, str, float]]:
    """Every source in the PostgreSQL store: ``(source_type, text, created_at)``, oldest first."""
    from memory_core.store.engines.database import Store

    with Store.open(home) as store:
        rows = store.conn.execute("SELECT source_type, body, created_at FROM sources ORDER BY created_at").fetchall()
    return [(kind, json.loads(body)["text"], float(created)) for kind, body, created in rows]


@pytest.fixture
def pg_home(home: Path, pg_url: str) -> Path:
    from memory_core.store.engines.database import Store

    Store.open(home).close()  # migrated, as a machine set up for PostgreSQL
    return home


def serve(home: Path, tmp_path: Path, name: str = "serve.log") -> MemevoServe:
    return MemevoServe(memevo_env(home, MEMEVO_DATABASE_URL=os.environ["MEMEVO_DATABASE_URL"]), log=tmp_path / name)


@pytest.fixture
def gateway(pg_home: Path, tmp_path: Path) -> Iterator[MemevoServe]:
    with serve(pg_home, tmp_path) as running:
        yield running


def timed_hook(data: dict[str, Any] | str, *args: str, **kwargs: Any) -> tuple[Any, float]:
    started = time.monotonic()
    result = hook_process(data, *args, **kwargs)
    return result, time.monotonic() - started


def spooled(home: Path) -> list[Path]:
    return spool.pending(home)


def wait_for(check: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_serve_tells_hooks_where_it_listens(gateway: MemevoServe, pg_home: Path) -> None:
    path = gateway_client.gateway_file(pg_home)
    assert gateway_client.read_gateway(pg_home) == (gateway.port, gateway.process.pid)  # type: ignore[union-attr]
    assert path.stat().st_mode & 0o777 == 0o600
    assert gateway_client.probe(pg_home) == (True, f"memevo serve answers on 127.0.0.1:{gateway.port}")
    gateway.stop()
    assert not path.exists()  # removed on the way out
    ok, detail = gateway_client.probe(pg_home)
    assert not ok and "memevo serve is not running" in detail


def test_recall_through_the_gateway_is_the_sqlite_hook_s_recall(
    gateway: MemevoServe, pg_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = clock.now() - 3600
    seed_claim(pg_home, at)
    sqlite_home = tmp_path / "sqlite-home"
    on_sqlite_env = {"MEMEVO_HOME": str(sqlite_home), "MEMEVO_DATABASE_URL": ""}
    with monkeypatch.context() as patch:
        for name, value in on_sqlite_env.items():
            patch.setenv(name, value)
        seed_claim(sqlite_home, at)
    data = generic("user_prompt", prompt=QUESTION)
    on_pg = hook_process(data, "user_prompt")
    on_sqlite = hook_process(data, "user_prompt", env=on_sqlite_env)
    assert on_pg.returncode == 0 and on_pg.stderr == b"", on_pg.stderr
    assert CLAIM.encode() in on_pg.stdout
    assert on_pg.stdout == on_sqlite.stdout
    assert not (pg_home / "memory.db").exists()  # the hook opened no SQLite store of its own

    # Claude Code's native prompt, the event named by the payload.
    transcript = claude_data.write_records(tmp_path / "t.jsonl", claude_data.records_until(claude_data.TURN_BASH))
    native = claude_data.payload("turn2-bash.UserPromptSubmit.1", transcript, prompt=QUESTION, cwd="/work/app")
    on_pg = hook_process(native, "--agent", "claude-code")
    on_sqlite = hook_process(native, "--agent", "claude-code", env=on_sqlite_env)
    assert on_pg.returncode == 0 and on_pg.stderr == b"", on_pg.stderr
    assert CLAIM.encode() in on_pg.stdout and on_pg.stdout == on_sqlite.stdout


def test_a_capture_lands_in_postgresql_once(gateway: MemevoServe, pg_home: Path) -> None:
    data = generic("turn_end", user_messages=[SAID])
    for _ in range(2):
        result = hook_process(data, "turn_end")
        assert result.returncode == 0 and result.stdout == b"" and result.stderr == b"", result.stderr
    assert [(kind, text) for kind, text, _ in pg_sources(pg_home)] == [("user_statement", SAID)]
    assert spooled(pg_home) == []


def test_a_bad_input_gets_the_command_s_own_line(gateway: MemevoServe) -> None:
    result = hook_process("not json", "turn_end")
    assert result.returncode == 0 and result.stdout == b""
    assert result.stderr.decode().startswith("memevo hook: hook input is not JSON")


def test_with_the_gateway_down_recall_prints_nothing_at_once(pg_home: Path, tmp_path: Path) -> None:
    seed_claim(pg_home, clock.now() - 3600)
    data = generic("user_prompt", prompt=QUESTION)
    refused, baseline = timed_hook(data, "user_prompt")  # no serve ever ran: no gateway file
    assert (refused.returncode, refused.stdout, refused.stderr) == (0, b"", b"")

    # A server that accepts the connection and never answers, named by the gateway file.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        gateway_client.write_gateway_file(pg_home, silent.getsockname()[1], os.getpid())
        (pg_home / "hook-token").write_text("x" * 64 + "\n")
        hung, waited = timed_hook(data, "user_prompt")
    finally:
        silent.close()
    assert (hung.returncode, hung.stdout, hung.stderr) == (0, b"", b"")
    assert waited - baseline < 1.0, (waited, baseline)
    log = (pg_home / "logs" / "hooks.log").read_text()
    assert "no recall: the gateway is down" in log and f"within {gateway_client.RECALL_SECONDS:g} s" in log
    assert spooled(pg_home) == []  # recall is never spooled


def test_captures_are_spooled_and_delivered_once(pg_home: Path, tmp_path: Path) -> None:
    data = generic("turn_end", user_messages=[SAID])
    before = clock.now()
    for _ in range(2):  # the same event sent twice while the gateway is down
        result = hook_process(data, "turn_end")
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    captured_by = clock.now()
    files = spooled(pg_home)
    assert len(files) == 2
    assert (pg_home / "spool").stat().st_mode & 0o777 == 0o700
    assert all(path.stat().st_mode & 0o777 == 0o600 for path in files)
    kept = tmp_path / "kept.hook"
    shutil.copy(files[0], kept)
    time.sleep(1.1)  # so a source stamped at delivery would differ from one stamped at capture

    with serve(pg_home, tmp_path) as running:
        # The files leave the spool one by one; the line comes once the drain is over.
        wait_for(lambda: "spool: delivered 2 event(s)" in running.output())
        assert spooled(pg_home) == []
        live = hook_process(data, "turn_end")  # and sent live too
        assert (live.returncode, live.stdout, live.stderr) == (0, b"", b"")
    captured = pg_sources(pg_home)
    assert [(kind, text) for kind, text, _ in captured] == [("user_statement", SAID)]
    # The time of the event (while the hooks ran), not of the delivery (1.1 s later at least).
    assert before <= captured[0][2] <= captured_by

    shutil.copy(kept, pg_home / "spool" / kept.name)  # the same spooled payload replayed again
    with serve(pg_home, tmp_path, "serve2.log"):
        wait_for(lambda: spooled(pg_home) == [])
    assert [(kind, text) for kind, text, _ in pg_sources(pg_home)] == [("user_statement", SAID)]


def test_serve_delivers_what_is_spooled_while_it_runs(gateway: MemevoServe, pg_home: Path) -> None:
    """A hook that could not reach a running gateway spools; the next gateway request wakes the
    delivery."""
    spool.spool_event(
        pg_home, json.dumps(generic("turn_end", user_messages=[SAID])).encode(), "turn_end", None, 1e9, log_failure
    )
    assert len(spooled(pg_home)) == 1
    prompt = hook_process(generic("user_prompt", prompt=QUESTION), "user_prompt")
    assert prompt.returncode == 0 and prompt.stderr == b""
    wait_for(lambda: spooled(pg_home) == [])
    assert pg_sources(pg_home) == [("user_statement", SAID, 1e9)]


def test_a_corrupt_spool_file_is_set_aside(pg_home: Path, tmp_path: Path) -> None:
    directory = pg_home / "spool"
    directory.mkdir(mode=0o700)
    (directory / f"{0:020d}-1-bad{spool.SUFFIX}").write_bytes(b"\x00garbage without a header")
    (directory / f"{1:020d}-1-bad{spool.SUFFIX}").write_bytes(b'{"format": 1, "event": 5, "now": 1}\n{}')
    spool.spool_event(
        pg_home, json.dumps(generic("turn_end", user_messages=[SAID])).encode(), "turn_end", None, 1e9, log_failure
    )
    with serve(pg_home, tmp_path) as running:
        wait_for(lambda: spooled(pg_home) == [])
        # The files leave the spool before the drainer reports: wait for its line too.
        wait_for(lambda: "set aside 2" in running.output())
        assert running.alive
        assert gateway_client.probe(pg_home)[0]
    assert sorted(p.name for p in (directory / "corrupt").iterdir()) == [
        f"{0:020d}-1-bad{spool.SUFFIX}",
        f"{1:020d}-1-bad{spool.SUFFIX}",
    ]
    assert [text for _, text, _ in pg_sources(pg_home)] == [SAID]
    log = (pg_home / "logs" / "hooks.log").read_text()
    assert "set aside in spool/corrupt/: no header line" in log


def test_the_gateway_route_is_closed_and_takes_every_agent(gateway: MemevoServe) -> None:
    body = json.dumps(generic("session_end")).encode()
    status, _ = gateway.request("POST", "/gateway/hook?event=session_end", body, {"Host": f"127.0.0.1:{gateway.port}"})
    assert status == 401
    headers = {"Authorization": f"Bearer {gateway.token}", "Host": f"127.0.0.1:{gateway.port}"}
    status, _ = gateway.request("POST", "/gateway/hook", body, {**headers, "Host": "evil.example:80"})
    assert status == 403
    status, answer = gateway.request("POST", "/gateway/hook?event=session_end&agent=nope", body, headers)
    assert status == 400 and b"unknown agent" in answer
    status, answer = gateway.request("POST", "/gateway/hook?event=x", body, {**headers, "X-Memevo-Now": "soon"})
    assert status == 400
    for agent in ADAPTER_NAMES:
        status, answer = gateway.request("POST", f"/gateway/hook?agent={agent}", b"{}", headers)
        assert status == 200, agent
        assert set(json.loads(answer)) == {"stdout", "stderr"}
    status, answer = gateway.request("POST", "/gateway/hook?event=session_end&agent=generic", body, headers)
    assert (status, json.loads(answer)) == (200, {"stdout": "", "stderr": ""})


def test_the_client_token_reader_is_the_server_s(home: Path) -> None:
    from cli.hooks import hook_token

    assert (gateway_client.TOKEN_VARIABLE, gateway_client.TOKEN_FILE) == (
        hook_token.TOKEN_VARIABLE,
        hook_token.TOKEN_FILE,
    )
    assert gateway_client.read_token(home) is None  # never made by a hook
    assert gateway_client.read_token(home) is None and not (home / "hook-token").exists()
    made = hook_token.hook_token(home, {})
    assert gateway_client.read_token(home) == made


def test_a_capture_the_store_cannot_take_waits_in_the_spool(pg_home: Path, tmp_path: Path) -> None:
    """The gateway is up but PostgreSQL is not (here: a port nothing listens on): the capture is
    kept in the spool, not lost, and delivered at its own time once the store answers."""
    url = os.environ["MEMEVO_DATABASE_URL"]
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        dead_port = free.getsockname()[1]
    parts = url.split("@", 1)
    _, rest = parts[1].split("/", 1)
    unreachable = f"{parts[0]}@127.0.0.1:{dead_port}/{rest}"
    before = clock.now()
    cut_off = MemevoServe(memevo_env(pg_home, MEMEVO_DATABASE_URL=unreachable), log=tmp_path / "cut-off.log")
    with cut_off:
        result = hook_process(generic("turn_end", user_messages=[SAID]), "turn_end")
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
        captured_by = clock.now()
        assert len(spooled(pg_home)) == 1
    assert "kept in the spool until the store can be reached" in (pg_home / "logs" / "hooks.log").read_text()
    time.sleep(1.1)  # so a source stamped at delivery would differ from one stamped at capture
    with serve(pg_home, tmp_path, "back.log"):
        wait_for(lambda: spooled(pg_home) == [])
    captured = pg_sources(pg_home)
    assert [(kind, text) for kind, text, _ in captured] == [("user_statement", SAID)]
    assert before <= captured[0][2] <= captured_by  # the event's time, not the delivery's
