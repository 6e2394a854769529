"""Everyday concurrent use with a model as slow as a real one: nothing may be damaged.

    python -m bench.reliability.everyday [--seconds 150] [--model-delay 6] [--database-url postgresql://…]

Everything a person's machine does at once, for ``seconds``: a worker (one process worker,
as `memevo worker -w 1`) whose loopback model takes ``model_delay`` seconds per answer, a
producer capturing turns through the hook path, real `memevo hook` processes, `memevo
evolve --wait 3` in a loop, `memevo list` and `memevo status` in loops, recall and capture
requests to `memevo serve` and page requests to `memevo ui`. Each `memevo serve` and `memevo
ui` request and each worker heartbeat opens connections on threads of long-running
processes: exactly where a descriptor of ``memory.db`` opened and closed outside SQLite
dropped another thread's locks and let the WAL be deleted under it (docs/reliability.md,
"SQLite's locks"). With a model that answered at once the window never opened.

Afterwards: ``PRAGMA integrity_check`` ok (SQLite) and every row valid, no process logged a
database error or a traceback, every capture is exactly one source, no source was applied
twice and no source has more than one claim of its own.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.reliability.harness import (
    REPO,
    applies_per_source,
    claims_per_source,
    consumers,
    integrity,
    logged_tracebacks,
    new_place,
    print_figures,
    source_states,
)
from bench.reliability.producers import finish_producers, start_producers, turns_per_session

# What a process says when SQLite (or the store above it) met a damaged or lost database.
DATABASE_ERRORS = re.compile(
    r"malformed|disk I/O error|DatabaseError|not a database|database is locked|stayed busy|SQLITE_|corrupt",
    re.IGNORECASE,
)
_UI_URL = re.compile(r"(http://127\.0\.0\.1:(\d+)/\?token=[0-9a-f]{64})")


class Loop(threading.Thread):
    """Runs ``step`` until stopped, counting runs and keeping what failed."""

    def __init__(self, name: str, step: Callable[[int], str | None], pause: float = 0.0) -> None:
        super().__init__(name=name, daemon=True)
        self.step = step
        self.pause = pause
        self.runs = 0
        self.failures: list[str] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                problem = self.step(self.runs)
            except Exception as exc:  # a request that raised is a failure to report, not a crash
                problem = f"{type(exc).__name__}: {exc}"
            self.runs += 1
            if problem:
                self.failures.append(problem[:500])
            self.stopping.wait(self.pause)

    def stop(self) -> None:
        self.stopping.set()


def memevo(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout
    )


def command_step(env: dict[str, str], *args: str, ok: tuple[int, ...] = (0,)) -> Callable[[int], str | None]:
    def step(_: int) -> str | None:
        result = memevo(env, *args)
        said = result.stderr.strip()
        if result.returncode not in ok or DATABASE_ERRORS.search(said) or "Traceback" in said:
            return f"memevo {' '.join(args)}: exit {result.returncode}: {said[-400:]}"
        return None

    return step


def evolve_step(env: dict[str, str]) -> Callable[[int], str | None]:
    """`memevo evolve --wait 3`: a person forcing the next attempt; any outcome but an error."""
    return command_step(env, "evolve", "--wait", "3", ok=(0, 3, 4, 6))


def hook_process_step(env: dict[str, str], captured: list[str]) -> Callable[[int], str | None]:
    """A real `memevo hook turn_end` process capturing one turn."""

    def step(n: int) -> str | None:
        session = f"hookproc-{n}"
        payload = {
            "schema": "memevo.hook/v1",
            "event": "turn_end",
            "agent": "everyday",
            "session_id": session,
            "cwd": "/tmp",
            "user_messages": [f"remember that the job runner hp{n} listens on port {20000 + n}"],
        }
        result = subprocess.run(
            [sys.executable, "-m", "cli", "hook", "turn_end"],
            cwd=REPO,
            env=env,
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=60,
        )
        if result.returncode != 0 or result.stdout or result.stderr:
            return f"hook process {session}: exit {result.returncode}: {result.stderr.decode(errors='replace')[-300:]}"
        captured.append(session)
        return None

    return step


def serve_step(server: Any) -> Callable[[int], str | None]:
    """A recall (Claude Code's UserPromptSubmit) sent to `memevo serve`, answered on one of its
    threads; the captures of the real hook processes reach it too, by the warm path."""

    def step(n: int) -> str | None:
        payload = {"hook_event_name": "UserPromptSubmit", "session_id": f"serve-{n}", "cwd": "/tmp",
                   "prompt": f"which port does the job runner hp{n % 7} listen on?"}  # fmt: skip
        status, body = server.post("UserPromptSubmit", payload)
        if status not in (200, 204) or DATABASE_ERRORS.search(body.decode(errors="replace")):
            return f"serve recall {n}: HTTP {status}: {body[:300]!r}"
        return None

    return step


class UiClient:
    """`memevo ui --port 0 --no-browser`, signed in once with its printed token."""

    PAGES = ("/", "/review", "/queue", "/learning", "/injections", "/charts")

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cli", "ui", "--port", "0", "--no-browser"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=open(log, "wb"),  # noqa: SIM115 - closed with the process
            text=True,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = _UI_URL.search(line)
        if not found:
            self.stop()
            raise AssertionError(f"memevo ui did not print its address: {line!r}")
        self.port = int(found.group(2))
        status, headers, _ = self.get(found.group(1).split(f":{self.port}", 1)[1])
        cookie = headers.get("set-cookie", "")
        if status not in (200, 302, 303) or not cookie:
            raise AssertionError(f"memevo ui refused its own token: HTTP {status}")
        self.cookie = cookie.split(";", 1)[0]

    def get(self, path: str, cookie: str | None = None) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request("GET", path, headers={"Cookie": cookie} if cookie else {})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def step(self, n: int) -> str | None:
        path = self.PAGES[n % len(self.PAGES)]
        status, _, body = self.get(path, self.cookie)
        if status != 200 or DATABASE_ERRORS.search(body.decode(errors="replace")):
            return f"ui {path}: HTTP {status}: {body[-300:]!r}"
        return None

    def stop(self) -> None:
        import os
        import signal

        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def run(
    seconds: float = 150.0,
    model_delay: float = 6.0,
    *,
    database_url: str | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Run the everyday check; raises AssertionError when anything is off."""
    from tests.support.fake_model import FakeModelProcess
    from tests.support.memevo_serve import MemevoServe

    with tempfile.TemporaryDirectory(prefix="memevo-everyday-", dir=workdir) as tmp:
        root = Path(tmp)
        with new_place(root / "home", database_url, None) as place:
            with place.active():
                from memory_core.store.engines.database import Store

                Store.open(place.home).close()
            with FakeModelProcess(root, default_delay=model_delay) as model:
                env = place.env(MEMEVO_MODEL_URL=model.base_url, MEMEVO_MODEL="fake", MEMEVO_HOOK_WARM="0")
                warm_env = {**env, "MEMEVO_HOOK_WARM": "1"}
                captured_by_hooks: list[str] = []
                with (
                    consumers(place, env, root, 1, 1),
                    MemevoServe(warm_env, log=root / "serve.log") as server,
                ):
                    ui = UiClient(env, root / "ui.log")
                    started = time.monotonic()
                    rounds = max(4, int(seconds / 3))
                    producers = start_producers(warm_env, "p", 1, rounds, pause=2.5)
                    loops = [
                        Loop("evolve", evolve_step(env), pause=0.5),
                        Loop("list", command_step(env, "list", "--json"), pause=0.5),
                        Loop("status", command_step(env, "status", "--json"), pause=0.5),
                        Loop("hook", hook_process_step(warm_env, captured_by_hooks), pause=1.0),
                        Loop("serve", serve_step(server), pause=0.3),
                        Loop("ui", ui.step, pause=0.2),
                    ]
                    for loop in loops:
                        loop.start()
                    try:
                        time.sleep(seconds)
                    finally:
                        for loop in loops:
                            loop.stop()
                        for loop in loops:
                            loop.join(timeout=180)
                        ui.stop()
                    hook_errors = sum(errors for errors, _ in finish_producers(producers, 600))
                    busy_for = round(time.monotonic() - started, 1)
                requests = model.request_count()
            per_source = claims_per_source(place)
            applies = applies_per_source(place)
            sessions = turns_per_session(place)
            checked = integrity(place)
            logs = sorted(root.glob("*.log")) + sorted((place.home / "logs").glob("*.log"))
            database_errors = [
                f"{log.name}: {line.strip()[:300]}"
                for log in logs
                for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
                if DATABASE_ERRORS.search(line)
            ]
            expected_sessions = [f"p0-{i}" for i in range(rounds)] + captured_by_hooks
            figures = {
                "backend": place.backend,
                "seconds": busy_for,
                "model_delay_s": model_delay,
                "runs": {loop.name: loop.runs for loop in loops},
                "failures": {loop.name: loop.failures[:3] for loop in loops if loop.failures},
                "producer_hook_errors": hook_errors,
                "captures": len(expected_sessions),
                "sources": sum(sessions.values()),
                "lost": sum(1 for s in expected_sessions if sessions.get(s, 0) == 0),
                "stored_twice": sum(1 for n in sessions.values() if n > 1),
                "states": source_states(place),
                "model_requests": requests,
                "claims": sum(per_source.values()),
                "sources_with_two_claims": sum(1 for sid, n in per_source.items() if sid and n > 1),
                "applied_twice": sum(1 for n in applies.values() if n > 1),
                "integrity": checked,
                "database_errors": database_errors[:10],
                "tracebacks": logged_tracebacks(logs),
            }
    assert not figures["failures"] and figures["producer_hook_errors"] == 0, figures
    assert figures["lost"] == 0 and figures["stored_twice"] == 0, figures
    assert figures["applied_twice"] == 0 and figures["sources_with_two_claims"] == 0, figures
    assert checked["ok"] and not figures["database_errors"] and not figures["tracebacks"], figures
    assert figures["states"].get("done", 0) >= 1 and min(figures["runs"].values()) >= 2, figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--model-delay", type=float, default=6.0)
    parser.add_argument("--database-url", default=None, help="run on PostgreSQL, in a fresh schema of this database")
    args = parser.parse_args()
    print_figures("everyday", run(args.seconds, args.model_delay, database_url=args.database_url))


if __name__ == "__main__":
    main()
