"""A real Redis for the queue tests: ``redis-server`` started on a free 127.0.0.1 port with
no persistence, in a temporary directory, stopped (by its own process id) when done.

Where ``redis-server`` is not installed the tests that need it skip and say why; with
``MEMEVO_REQUIRE_REDIS=1`` (CI) they fail instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REQUIRE_VARIABLE = "MEMEVO_REQUIRE_REDIS"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def binary() -> str | None:
    return shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A running Redis; yields its URL (``redis://127.0.0.1:PORT/0``)."""
    exe = binary()
    if exe is None:
        raise FileNotFoundError("redis-server is not installed (apt-get install redis-server)")
    with tempfile.TemporaryDirectory(prefix="memevo-redis-") as tmp:
        port = _free_port()
        process = subprocess.Popen(
            [exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", tmp],
            stdout=open(Path(tmp) / "redis.log", "wb"),  # noqa: SIM115  (closed with the process)
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while not _answers(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    log = (Path(tmp) / "redis.log").read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"redis-server did not start on 127.0.0.1:{port}:\n{log}")
                time.sleep(0.02)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A session's Redis (import this fixture into a test module to use it); each test
    should flush what it wrote or use a queue of its own."""
    if binary() is None:
        message = "Redis tests skipped: redis-server is not installed (apt-get install redis-server)"
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{message} ({REQUIRE_VARIABLE}=1)")
        pytest.skip(message)
    with redis_server() as url:
        yield url
