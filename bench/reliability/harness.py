"""Process plumbing shared by the reliability checks: the state dir, a real consumer, the
loopback model, reading memory.db."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.support.memevo_worker import query  # noqa: E402  (reading memory.db, as the end-to-end tests do)

T = TypeVar("T")


def memevo_env(home: Path, **extra: str) -> dict[str, str]:
    """This environment without memevo settings, plus ``MEMEVO_HOME`` and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env.update({"MEMEVO_HOME": str(home), "PYTHONPATH": str(REPO)})
    env.update(extra)
    return env


@contextmanager
def state_home(home: Path) -> Iterator[Path]:
    """``MEMEVO_HOME`` pointing at ``home`` in this process for the duration."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("MEMEVO_")}
    for name in saved:
        del os.environ[name]
    os.environ["MEMEVO_HOME"] = str(home)
    try:
        yield home
    finally:
        for name in [k for k in os.environ if k.startswith("MEMEVO_")]:
            del os.environ[name]
        os.environ.update(saved)


def wait_until(probe: Callable[[], T], timeout: float, what: str, every: float = 0.1) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


class Consumer:
    """``huey_consumer workers.main.huey`` with process workers, in its own process group."""

    def __init__(self, env: dict[str, str], log: Path, workers: int = 2) -> None:
        exe = Path(sys.executable).with_name("huey_consumer")
        # -m 0.5: poll at least twice a second so nothing waits on idle back-off.
        self.argv = [
            str(exe),
            "workers.main.huey",
            "-k",
            "process",
            "-w",
            str(workers),
            "-g",
            "TERM",
            "-t",
            "3",
            "-m",
            "0.5",
        ]
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Consumer:
        with open(self.log, "ab") as handle:
            self.process = subprocess.Popen(
                self.argv,
                cwd=REPO,
                env=self.env,
                stdout=handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (the consumer and its worker processes) and reap it."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        if sig != signal.SIGKILL:  # a worker process may outlive a graceful stop briefly
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process = None

    def __enter__(self) -> Consumer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()


def source_states(home: Path) -> dict[str, int]:
    return dict(query(home, "SELECT state, COUNT(*) FROM sources GROUP BY state"))


def claims_per_source(home: Path) -> dict[str, int]:
    return dict(query(home, "SELECT json_extract(body, '$.source_id'), COUNT(*) FROM memories GROUP BY 1"))


def integrity(home: Path) -> dict[str, Any]:
    """SQLite's integrity check and memevo's own row checks (what `memevo status` runs)."""
    from memory_core.store.database import Store
    from memory_core.store.integrity import check_integrity

    conn = sqlite3.connect(home / "memory.db", timeout=30)
    try:
        sqlite_ok = conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    with Store.open_readonly(home) as store:
        report = check_integrity(store.conn)
    return {"sqlite": sqlite_ok, "rows_ok": bool(report["ok"]), "corrupt_rows": report.get("corrupt_count", 0)}


def force_attempts(env: dict[str, str], source_ids: list[str], wait: float = 30) -> list[str]:
    """`memevo evolve --source ID --wait` for each id (a person forcing what waits for a retry)."""
    statuses = []
    for sid in source_ids:
        result = subprocess.run(
            [sys.executable, "-m", "cli", "evolve", "--source", sid, "--wait", str(wait), "--json"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=wait + 60,
        )
        try:
            statuses.append(str(json.loads(result.stdout).get("status")))
        except ValueError:
            statuses.append(f"exit {result.returncode}: {result.stderr.strip()[:200]}")
    return statuses


def print_figures(name: str, figures: dict[str, Any]) -> None:
    print(f"reliability {name}: {json.dumps(figures, sort_keys=True)}", flush=True)
