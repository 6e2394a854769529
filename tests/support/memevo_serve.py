"""``memevo serve`` as a real process on a free loopback port, and requests to it.

    with MemevoServe(memevo_env(state_dir), log=tmp_path / "serve.log") as server:
        status, body = server.post("UserPromptSubmit", payload)

The server is started with ``--port 0`` and its port read from the line it prints (on
stderr, kept in ``log``) when it listens; it runs in its own process group, killed on exit
even when the test failed. Only the standard library is used.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.memevo_worker import MEMEVO_BIN, REPO

_LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)/")


class MemevoServe:
    """``memevo serve --port 0`` with ``env``; :attr:`port` and :attr:`token` once entered."""

    def __init__(self, env: Mapping[str, str], *, log: Path, timeout: float = 30) -> None:
        self.env = dict(env)
        self.log = log
        self.timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def __enter__(self) -> MemevoServe:
        with open(self.log, "wb") as err:
            self.process = subprocess.Popen(
                [str(MEMEVO_BIN), "serve", "--port", "0"],
                env=self.env,
                cwd=str(REPO),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
            )
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            found = _LISTENING.search(self.output())
            if found:
                self.port = int(found.group(1))
                return self
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"memevo serve did not start:\n{self.output()}")

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def output(self) -> str:
        """What it printed on stderr so far."""
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def stop(self) -> str:
        """Stop the server (SIGTERM, then SIGKILL); what it printed on stderr."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.output()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def token(self) -> str:
        """The hook token it uses: ``$MEMEVO_HOOK_TOKEN`` or the state dir's ``hook-token``."""
        given = self.env.get("MEMEVO_HOOK_TOKEN")
        if given:
            return given
        return (Path(self.env["MEMEVO_HOME"]) / "hook-token").read_text(encoding="ascii").strip()

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: Mapping[str, str] | None = None
    ) -> tuple[int, bytes]:
        """One request on its own connection: ``(status, body)``."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            connection.request(method, path, body=body, headers=dict(headers or {}))
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def post(self, event: str, data: dict[str, Any] | bytes, *, token: str | None = None) -> tuple[int, bytes]:
        """POST ``data`` (a payload, or raw bytes) to ``/hooks/claude-code/<event>`` with the token."""
        body = data if isinstance(data, bytes) else json.dumps(data).encode("utf-8")
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token or self.token}"}
        return self.request("POST", f"/hooks/claude-code/{event}", body, headers)
