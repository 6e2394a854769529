"""Process plumbing shared by the reliability checks: a real consumer, `memevo serve`, a hook
call as an agent makes it, the store's counts, forcing attempts.

Where a check's state lives (SQLite or a PostgreSQL schema) and how it is read back is
:mod:`bench.reliability.stores`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.reliability.stores import Place, integrity, new_place, stored_bytes  # noqa: E402

if TYPE_CHECKING:
    from cli.hooks.entry import HookRun
    from tests.support.memevo_serve import MemevoServe

__all__ = ["Place", "integrity", "new_place", "stored_bytes"]

T = TypeVar("T")


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

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

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


@contextmanager
def consumers(place: Place, env: dict[str, str], logs: Path, count: int, workers: int) -> Iterator[list[Consumer]]:
    """``count`` consumers (on PostgreSQL: machines sharing the queue) of ``workers`` process
    workers each, logging to ``logs/consumer-N.log``; all killed on the way out."""
    started = [Consumer(env, logs / f"consumer-{n}.log", workers=workers).start() for n in range(count)]
    try:
        yield started
    finally:
        for consumer in started:
            consumer.kill(signal.SIGTERM)


@contextmanager
def gateway(place: Place, log: Path) -> Iterator[MemevoServe | None]:
    """On PostgreSQL, `memevo serve` for the place (hooks hand it their payloads); nothing to
    start on SQLite, where a hook opens ``memory.db`` itself."""
    if not place.on_postgres:
        yield None
        return
    from tests.support.memevo_serve import MemevoServe

    with place.active():
        from memory_core.store.engines.database import Store

        Store.open(place.home).close()  # a machine set up for PostgreSQL (memevo status does it)
    with MemevoServe(place.env(), log=log) as server:
        yield server


def hook_call(raw: bytes, event: str | None, adapter: str | None) -> HookRun:
    """What `memevo hook [EVENT] [--agent ADAPTER]` does with ``raw`` read from stdin
    (cli.hooks.entry.handle): on a PostgreSQL store through `memevo serve`, else in this
    process. Run with the place active."""
    from cli.hooks.entry import HookRun, gateway_home, log_failure, run_hook, valid_text

    event = valid_text(event) if event is not None else None
    home = gateway_home()
    if home is not None:
        from cli.hooks.gateway_client import run_through_gateway

        return HookRun(*run_through_gateway(home, raw, event, adapter, log_failure))
    return run_hook(raw, event, adapter)


def spool_delivered(place: Place) -> bool:
    """Whether `memevo serve` has delivered every spooled event; if not, one recall hook call,
    as the next prompt would make: a gateway request that finds the spool waiting wakes its
    drainer (which otherwise looks every 30 s). Run with the place active or not."""
    from cli.hooks import spool

    if not spool.pending(place.home):
        return True
    payload = {"schema": "memevo.hook/v1", "event": "user_prompt", "cwd": "/tmp", "prompt": "which port?"}
    with place.active():
        hook_call(json.dumps(payload).encode(), "user_prompt", None)
    return False


def source_states(place: Place) -> dict[str, int]:
    return dict(place.query("SELECT state, COUNT(*) FROM sources GROUP BY state"))


def claims_per_source(place: Place) -> dict[str, int]:
    counts: dict[str, int] = {}
    for (body,) in place.query("SELECT body FROM memories"):
        source_id = json.loads(body).get("source_id")
        counts[source_id] = counts.get(source_id, 0) + 1
    return counts


def applies_per_source(place: Place) -> dict[str, int]:
    return dict(
        place.query("SELECT source_id, COUNT(*) FROM events WHERE operation = 'consolidate' GROUP BY source_id")
    )


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


def logged_tracebacks(logs: list[Path]) -> list[str]:
    """The tracebacks in ``logs``, each as its log's name and the exception it ended with."""
    found = []
    for log in logs:
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        for chunk in text.split("Traceback (most recent call last):")[1:]:
            lines = [line for line in chunk.splitlines() if line.strip()]
            raised = next((line for line in lines if not line.startswith((" ", "\t"))), "")
            found.append(f"{log.name}: {raised[:300]}")
    return found


def print_figures(name: str, figures: dict[str, Any]) -> None:
    print(f"reliability {name}: {json.dumps(figures, sort_keys=True)}", flush=True)
