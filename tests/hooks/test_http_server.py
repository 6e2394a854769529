"""``memevo serve``: Claude Code's http hooks answered by a real server process on loopback.

Each test starts ``memevo serve --port 0`` as its own process (the state dir through the
environment, as the Procfile runs it) and speaks HTTP to it; the command hook it must match
runs as a real ``memevo hook`` process on the same payload and state dir.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.hooks.entry import MAX_STDIN_BYTES
from cli.hooks.hook_token import TOKEN_FILE, TokenError, bearer_matches, hook_token
from cli.hooks.http_server import LOOPBACK, make_server, route
from memory_core.errors import UsageError
from tests.hooks.claude_data import (
    SESSION,
    TURN_AFTER_COMPACT,
    TURN_BASH,
    assistant_record,
    hook_process,
    payload,
    records_until,
    user_record,
    write_records,
)
from tests.hooks.support import sources
from tests.support.memevo_serve import MemevoServe
from tests.support.memevo_worker import memevo_env

QUESTION = "which port does the staging database use?"
SAID = "remember that the staging database listens on port 5433"
ENV_TOKEN = "t" * 40


@pytest.fixture
def server(home: Path, tmp_path: Path) -> Iterator[MemevoServe]:
    with MemevoServe(memevo_env(home), log=tmp_path / "serve.log") as running:
        yield running


def stop_payload(tmp_path: Path, said: str = SAID) -> dict[str, object]:
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH) + [user_record(said, TURN_AFTER_COMPACT), assistant_record("Ok.")],
    )
    return payload("turn10-after-compact.Stop.1", transcript)


def test_the_token_is_made_once_private_and_shared(home: Path) -> None:
    first = hook_token(home, {})
    assert len(first) == 64 and int(first, 16) >= 0
    assert hook_token(home, {}) == first
    assert (home / TOKEN_FILE).stat().st_mode & 0o777 == 0o600
    assert hook_token(home, {"MEMEVO_HOOK_TOKEN": ENV_TOKEN}) == ENV_TOKEN
    with pytest.raises(TokenError, match="at least 32"):
        hook_token(home, {"MEMEVO_HOOK_TOKEN": "short"})
    assert bearer_matches(f"Bearer {first}", first) and bearer_matches(f"bearer  {first} ", first)
    for header in (None, "", first, f"Basic {first}", f"Bearer {first[:-1]}", "Bearer "):
        assert not bearer_matches(header, first)


def test_it_binds_loopback_only() -> None:
    for host in ("0.0.0.0", "::", "localhost", "192.168.1.10", ""):
        with pytest.raises(UsageError, match="127.0.0.1 only"):
            make_server(host, 0, ENV_TOKEN)
    server = make_server(LOOPBACK, 0, ENV_TOKEN)
    try:
        assert server.server_address[0] == "127.0.0.1" and server.socket.family == socket.AF_INET
    finally:
        server.server_close()
    assert route("/hooks/claude-code/Stop") == ("claude-code", "Stop")
    for path in ("/hooks/claude-code/SessionStart", "/hooks/codex/Stop", "/hooks/claude-code/Stop/x", "/Stop"):
        assert route(path) is None


def test_without_the_right_token_nothing_is_done(server: MemevoServe, home: Path, tmp_path: Path) -> None:
    data = stop_payload(tmp_path)
    body = json.dumps(data).encode()
    assert server.request("POST", "/hooks/claude-code/Stop", body, {"Content-Type": "application/json"})[0] == 401
    assert server.post("Stop", data, token="x" * 64)[0] == 401
    assert server.request("GET", "/health")[0] == 401
    assert sources(home) == []
    assert not (home / "sessions").exists() and not (home / "memory.db").exists()

    assert server.post("Stop", data) == (204, b"")
    assert sources(home) == [("user_statement", "claude-code", SESSION, "/home/user/project", SAID)]
    assert server.request("GET", "/health", headers={"Authorization": f"Bearer {server.token}"})[0] == 200


def test_a_request_must_name_the_loopback_host(server: MemevoServe, home: Path, tmp_path: Path) -> None:
    """A page that rebinds a name to 127.0.0.1 sends its own name as the Host."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest("POST", "/hooks/claude-code/Stop", skip_host=True)
        body = json.dumps(stop_payload(tmp_path)).encode()
        for name, value in (
            ("Host", f"attacker.example:{server.port}"),
            ("Authorization", f"Bearer {server.token}"),
            ("Content-Length", str(len(body))),
        ):
            connection.putheader(name, value)
        connection.endheaders(body)
        assert connection.getresponse().status == 403
    finally:
        connection.close()
    assert sources(home) == []


def test_bad_json_oversize_and_unknown_events_are_refused(server: MemevoServe, home: Path) -> None:
    assert server.post("UserPromptSubmit", b"{not json")[0] == 400
    assert server.post("UserPromptSubmit", b"[1, 2]")[0] == 400
    status, body = server.post("UserPromptSubmit", b"")
    assert status == 400 and b"Traceback" not in body
    assert server.post("SessionStart", payload("turn1-plain.SessionStart.1"))[0] == 404  # stays a command hook

    # An oversize body is refused from its Content-Length, before it is read.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        head = (
            f"POST /hooks/claude-code/Stop HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {server.token}\r\nContent-Length: {MAX_STDIN_BYTES + 1}\r\n\r\n"
        )
        raw.sendall(head.encode())
        assert raw.recv(64).startswith(b"HTTP/1.0 413")
    # A Content-Length of digits that are not ASCII ("²", byte 0xB2 read as Latin-1, is a digit
    # to str.isdigit) is a 411.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        head = (
            f"POST /hooks/claude-code/Stop HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {server.token}\r\nContent-Length: \u00b2\r\n\r\n"
        )
        raw.sendall(head.encode("latin-1"))
        assert raw.recv(64).startswith(b"HTTP/1.0 411")
    assert "hook input is not JSON" in (home / "logs" / "hooks.log").read_text()
    assert sources(home) == [] and server.alive


def test_answers_are_the_command_hooks_output_byte_for_byte(
    server: MemevoServe, home: Path, seeded: str, tmp_path: Path
) -> None:
    prompt = payload("turn2-bash.UserPromptSubmit.1", prompt=QUESTION)
    command = hook_process(prompt, "--agent", "claude-code")
    status, body = server.post("UserPromptSubmit", prompt)
    assert command.returncode == 0 and command.stderr == b""
    assert seeded in command.stdout.decode()
    assert (status, body) == (200, command.stdout)

    nothing = payload("turn1-plain.UserPromptSubmit.1")
    assert hook_process(nothing, "--agent", "claude-code").stdout == b""
    assert server.post("UserPromptSubmit", nothing) == (204, b"")

    # Stop prints nothing either way and captures the same source.
    stop = stop_payload(tmp_path)
    elsewhere = tmp_path / "other-state"
    command = hook_process(stop, "--agent", "claude-code", env={"MEMEVO_HOME": str(elsewhere)})
    assert (command.stdout, server.post("Stop", stop)) == (b"", (204, b""))
    assert (
        sources(home) == sources(elsewhere) == [("user_statement", "claude-code", SESSION, "/home/user/project", SAID)]
    )
    # A second delivery of the same turn is captured once, as with the command hook.
    assert server.post("Stop", stop) == (204, b"") and len(sources(home)) == 1


def test_a_broken_state_dir_answers_empty_successes(tmp_path: Path) -> None:
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    env = memevo_env(blocker, MEMEVO_HOOK_TOKEN=ENV_TOKEN)
    with MemevoServe(env, log=tmp_path / "serve.log") as server:
        assert server.post("UserPromptSubmit", payload("turn2-bash.UserPromptSubmit.1", prompt=QUESTION)) == (204, b"")
        assert server.post("Stop", stop_payload(tmp_path)) == (204, b"")
        assert server.post("SessionEnd", payload("turn1-plain.SessionEnd.1")) == (204, b"")
        assert server.request("GET", "/health", headers={"Authorization": f"Bearer {ENV_TOKEN}"})[0] == 200
        log = server.stop()
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"
    assert "Stop:" in log and "Traceback" not in log
    assert ENV_TOKEN not in log


def test_serve_refuses_to_start_without_a_usable_token(tmp_path: Path) -> None:
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(AssertionError, match="cannot read or make the hook token"):
        with MemevoServe(memevo_env(blocker), log=tmp_path / "serve.log"):
            pass
