"""Hostile input to the real `memevo mcp` process: it stays alive or exits cleanly, stdout
carries protocol messages only, and the store is left exactly as it was."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.mcp.support import PORT_CLAIM, ServerProcess, seed, store_state


def test_garbage_then_a_normal_session(home: Path) -> None:
    [claim_id] = seed(home, PORT_CLAIM)
    before = store_state(home)
    with ServerProcess() as server:
        server.send_raw(b"{not json\n")
        assert server.receive()["error"]["code"] == -32700
        server.send_raw(b"\xff\xfe\x00garbage\n")
        assert server.receive()["error"]["code"] == -32700
        server.send_raw(b"x" * (3 << 20) + b"\n")  # 3 MiB on one line
        assert server.receive()["error"]["code"] == -32600
        server.send_raw(b"[" * 200_000 + b"\n")
        assert server.receive()["error"]["code"] == -32700
        server.send_raw(b'{"jsonrpc": "2.0", "id": {"nested": 1}, "method": "ping"}\n')
        assert server.receive()["error"]["code"] == -32600
        server.initialize()
        assert server.request("tools/call", {"name": "rm_rf", "arguments": {}})["error"]["code"] == -32602
        assert server.request("no/such/method")["error"]["code"] == -32601
        for arguments in ({"query": 12}, {"query": {"$ne": 1}}, "query", {"query": "x" * 100_000}):
            result = server.call("memory_recall", arguments)["result"]
            assert result["isError"] is True and "Traceback" not in result["content"][0]["text"]
        for arguments in ({"id": 5}, {"id": "' OR 1=1 --"}, {"id": claim_id, "extra": True}):
            assert server.call("memory_get", arguments)["result"]["isError"] is True
        recalled = server.call("memory_recall", {"query": "-- staging database port"})["result"]
        assert recalled["isError"] is False and claim_id in recalled["content"][0]["text"]
        code, rest, stderr = server.close()
    assert code == 0 and rest == b"", stderr
    assert "Traceback" not in stderr
    assert store_state(home) == before


def test_stdin_closed_mid_call_finishes_the_call_and_exits(home: Path) -> None:
    [claim_id] = seed(home, PORT_CLAIM)
    before = store_state(home)
    with ServerProcess() as server:
        server.initialize()
        call = {"name": "memory_recall", "arguments": {"query": "staging database port"}}
        server.send_raw(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": call}).encode())
        # No newline: the message ends with the stream; then stdin closes.
        code, rest, stderr = server.close()
    assert code == 0, stderr
    [line] = rest.splitlines()
    assert json.loads(line)["id"] == 99 and claim_id in json.loads(line)["result"]["content"][0]["text"]
    assert store_state(home) == before


def test_client_gone_mid_session_exits_cleanly(home: Path) -> None:
    seed(home, PORT_CLAIM)
    home.mkdir(parents=True, exist_ok=True)  # on PostgreSQL nothing else makes it
    before = store_state(home)
    with ServerProcess() as server:
        server.initialize()
        assert server.process.stdout is not None
        server.process.stdout.close()  # the client stops reading
        try:
            for n in range(50):  # answers now go nowhere: the server sees the broken pipe and leaves
                server.send({"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/list"})
                if server.process.poll() is not None:
                    break
                time.sleep(0.01)
            assert server.process.stdin is not None
            server.process.stdin.close()
        except BrokenPipeError:
            pass  # it left before reading everything
        code = server.process.wait(timeout=20)
        assert server.process.stderr is not None
        stderr = server.process.stderr.read().decode()
    assert code == 0 and "Traceback" not in stderr, stderr
    assert store_state(home) == before
    assert "client went away" in (home / "logs" / "mcp.log").read_text()


def test_a_broken_store_is_a_safe_tool_error(home: Path) -> None:
    seed(home, PORT_CLAIM)
    db = home / "memory.db"
    if not db.exists():  # PostgreSQL: a URL nobody answers
        env = {"MEMEVO_DATABASE_URL": "postgresql://memevo:secret-pass@127.0.0.1:9/nowhere"}
    else:
        for extra in home.glob("memory.db-*"):
            extra.unlink()
        db.write_bytes(b"this is not a database" * 100)
        env = {}
    with ServerProcess(env) as server:
        server.initialize()
        result = server.call("memory_recall", {"query": "staging port"})["result"]
        assert server.request("ping")["result"] == {}
        server.close()
    text = result["content"][0]["text"]
    assert result["isError"] is True and "Traceback" not in text
    assert "memevo doctor" in text  # says what to do
    assert "secret-pass" not in text
