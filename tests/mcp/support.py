"""Helpers for the MCP server's tests: claims in the real store, the server as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from memory_core.store.engines.copying import table_digests
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory
from tests.support.processes import REPO

SERVER_ARGV = [sys.executable, "-m", "cli", "mcp"]
PORT_CLAIM = "The staging database listens on port 6543"


def seed(home: Path, *contents: str) -> list[str]:
    """Claims written a minute ago (the server reads the real clock); their ids."""
    with Store.open(home) as store, store.transaction() as conn:
        memories = [make_memory(text, at=time.time() - 60) for text in contents]
        for memory in memories:
            put_memory(conn, memory)
    return [m.id for m in memories]


def store_state(home: Path) -> dict[str, Any]:
    """Every table's row count and digest, plus memory.db's bytes on SQLite."""
    with Store.open_readonly(home) as store:
        state: dict[str, Any] = {"tables": table_digests(store.conn)}
    db = home / "memory.db"
    if db.exists():
        state["bytes"] = db.read_bytes()
    return state


class ServerProcess:
    """``memevo mcp`` as a real process, spoken to line by line."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            SERVER_ARGV,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=str(REPO),
        )
        self.next_id = 1

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the server closed stdout; stderr: {self.stderr_text()}"
        message: dict[str, Any] = json.loads(line)
        return message

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        request_id, self.next_id = self.next_id, self.next_id + 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        answer = self.receive()
        assert answer["id"] == request_id
        return answer

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self, timeout: float = 20) -> tuple[int, bytes, str]:
        """Close stdin and wait: (exit code, what stdout still held, stderr)."""
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err.decode("utf-8", "replace")

    def stderr_text(self) -> str:
        if self.process.poll() is None:
            return "(still running)"
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
