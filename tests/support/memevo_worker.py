"""The installed ``memevo`` as real processes: its command line, its worker, its database.

For end-to-end tests that drive memevo the way a user does::

    env = memevo_env(state_dir, home=throwaway_home)
    run_memevo("install", "claude-code", "--scope", "user", env=env)
    with FakeModelProcess(tmp_path, [Reply.of_claims([...])]) as model:
        with MemevoWorker(env, model.base_url, log=tmp_path / "worker.log"):
            ...  # hooks capture; the worker consolidates
            wait_until(lambda: active_claims(state_dir), 30, "the claim")

``MemevoWorker`` runs ``memevo worker -w 1`` (which execs ``huey_consumer``) in its own
process group and kills that group on exit, even when the test failed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parents[2]
# The console script of the virtual environment running the tests (``.venv/bin/memevo``).
MEMEVO_BIN = Path(sys.executable).with_name("memevo")

T = TypeVar("T")


def memevo_env(state_dir: Path, *, home: Path | None = None, **extra: str) -> dict[str, str]:
    """This process's environment without memevo settings, plus ``MEMEVO_HOME=state_dir``
    (and ``HOME`` when given) and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env["MEMEVO_HOME"] = str(state_dir)
    if home is not None:
        env["HOME"] = str(home)
    env.update(extra)
    return env


def run_memevo(
    *args: str, env: Mapping[str, str], cwd: Path | None = None, input: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``memevo`` console script as a subprocess."""
    return subprocess.run(
        [str(MEMEVO_BIN), *args],
        input=input,
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=str(cwd or REPO),
        timeout=timeout,
    )


def wait_until(
    probe: Callable[[], T], timeout: float, what: str, *, every: float = 0.2, describe: Callable[[], str] | None = None
) -> T:
    """Poll ``probe`` until it returns something truthy (returned), or fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            detail = f"\n{describe()}" if describe is not None else ""
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}{detail}")
        time.sleep(every)


class MemevoWorker:
    """``memevo worker -w 1`` against an OpenAI-compatible model at ``model_url``."""

    def __init__(
        self, env: Mapping[str, str], model_url: str, *, log: Path, model: str = "fake", workers: int = 1
    ) -> None:
        self.env = {**env, "MEMEVO_MODEL_URL": model_url, "MEMEVO_MODEL": model}
        self.log = log
        self.argv = [str(MEMEVO_BIN), "worker", "-w", str(workers)]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> MemevoWorker:
        """Launch and wait (bounded) until the consumer reports it has started."""
        with open(self.log, "ab") as handle:
            self.process = subprocess.Popen(
                self.argv,
                cwd=str(REPO),
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            wait_until(self._started, timeout, "`memevo worker` to start", every=0.1, describe=self.output)
        except BaseException:
            self.stop()
            raise
        return self

    def _started(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"`memevo worker` exited {self.process.returncode}\n{self.output()}")
        return "consumer started" in self.output().lower()

    def output(self) -> str:
        """What the worker has logged so far (its last 4,000 characters)."""
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-4000:]
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        """Kill the worker's whole process group (the consumer and its worker processes)."""
        if self.process is None:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
        # Worker processes may outlive the consumer briefly; make sure none is left.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def __enter__(self) -> MemevoWorker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- reading memory.db --------------------------------------------------------------------------


def query(state_dir: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` over ``state_dir/memory.db`` opened read-only (none without the file,
    or while the process creating the store has not yet committed its schema: the file exists
    from its first connection on, its tables only once the migrations commit)."""
    db = state_dir / "memory.db"
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError:
            if conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0] == 0:
                return []
            raise
    finally:
        conn.close()


def sources(state_dir: Path) -> list[dict[str, Any]]:
    """Every captured source: id, origin, source_type, state and the parsed body."""
    rows = query(state_dir, "SELECT id, origin, source_type, state, body FROM sources ORDER BY created_at")
    return [{"id": i, "origin": o, "source_type": t, "state": s, "body": json.loads(b)} for i, o, t, s, b in rows]


def claims(state_dir: Path, status: str | None = None) -> list[dict[str, Any]]:
    """Every claim's parsed body (with ``status`` only those in that status)."""
    rows = query(state_dir, "SELECT body FROM memories ORDER BY updated_at")
    found = [json.loads(body) for (body,) in rows]
    return [c for c in found if status is None or c.get("status") == status]
