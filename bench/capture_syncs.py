"""Disk syncs and wall time of a capture hook, against a bare `python -c 'import sqlite3'`.

    python bench/capture_syncs.py [--runs 21] [--database-url postgresql://…] [--wal-captures 10000]
                                  [--model-delay 3]

Three capture hooks, each a whole process of the installed console script with a new
statement every run (so every run stores a source and enqueues a nudge): the generic
``turn_end`` with a "remember that …" cue, Claude Code's ``Stop`` (its transcript's last turn
carries the statement) and Claude Code's ``PostCompact`` (a compaction summary). Each on the
SQLite default without a worker and with one running (a real consumer, whose model is a
loopback fake answering after ``--model-delay`` seconds, 3 by default: as slow as a real one,
so the worker mostly waits as it would, instead of consolidating on a core the hooks share),
and with ``--database-url`` through `memevo serve` on PostgreSQL. For each: the
``fsync``/``fdatasync`` calls of one hook process, counted by ``strace -f`` (where strace is
installed), and the median wall time of interleaved runs over bare.

``--wal-captures N``: the size of ``memory.db-wal`` over N captures made the way a hook makes
them (a connection opened and closed per capture, in one process to keep it short), with and
without a consumer, sampled every tenth of the way: the WAL must stay bounded.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, bench_env, memevo_exe, time_command  # noqa: E402
from bench.hook_payloads import claude_code_setup, generic  # noqa: E402

SYNC_CALLS = "fsync,fdatasync,sync_file_range,syncfs,msync"


def count_syncs(argv: list[str], payload: bytes, env: dict[str, str]) -> int | None:
    """The disk syncs one process (and its children) made, or ``None`` without strace."""
    strace = shutil.which("strace")
    if strace is None:
        return None
    with tempfile.NamedTemporaryFile(suffix=".strace") as out:
        subprocess.run(
            [strace, "-f", "-qq", "-e", f"trace={SYNC_CALLS}", "-o", out.name, *argv],
            input=payload,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
            cwd=REPO,
        )
        return sum(1 for line in Path(out.name).read_text().splitlines() if "sync" in line)


def capture_hooks(tmp: Path) -> dict[str, Callable[[int], tuple[list[str], bytes]]]:
    """Per hook: a function of the run number giving its command line and a fresh payload."""
    exe = memevo_exe()
    hooks: dict[str, Callable[[int], tuple[list[str], bytes]]] = {
        "turn_end_cue": lambda i: (
            [exe, "hook", "turn_end"],
            generic("turn_end", str(tmp), session_id=f"syncs-{i}", user_messages=[f"remember that job {i} uses {i}"]),
        ),
    }
    cc = claude_code_setup(tmp)
    if cc is None:
        return hooks
    module = cc["cc"]

    def stop(i: int) -> tuple[list[str], bytes]:
        module.write_transcript(
            cc["transcript"], module.with_statement(cc["records"], cc["last_turn"], module.statement(i))
        )
        payload = {**cc["stop"], "session_id": f"{module.SESSION[:-4]}{i:04d}"}
        return [exe, "hook", "--agent", "claude-code"], json.dumps(payload).encode()

    def post_compact(i: int) -> tuple[list[str], bytes]:
        payload = {
            "hook_event_name": "PostCompact",
            "session_id": f"compact-{i}",
            "transcript_path": str(cc["transcript"]),
            "cwd": str(tmp),
            "trigger": "auto",
            "compact_summary": "<summary>\n1. Primary Request and Intent: ship the billing service release "
            f"{i}.\n- Decision: the billing service {i} deploys blue-green behind port {9000 + i}.\n"
            + "The session reviewed the release checklist. " * 40
            + "\n</summary>",
        }
        return [exe, "hook", "--agent", "claude-code"], json.dumps(payload).encode()

    hooks["claude_code_stop"] = stop
    hooks["claude_code_post_compact"] = post_compact
    return hooks


@contextmanager
def running_worker(env: dict[str, str], root: Path, model_delay: float) -> Iterator[None]:
    from bench.reliability.harness import Consumer
    from tests.support.fake_model import FakeModelProcess

    with FakeModelProcess(root, default_delay=model_delay) as model:
        worker_env = {**env, "MEMEVO_MODEL_URL": model.base_url, "MEMEVO_MODEL": "fake"}
        with Consumer(worker_env, root / "consumer.log", workers=1):
            time.sleep(2.0)  # started, heartbeat written
            yield


def measure(runs: int, database_url: str | None, model_delay: float = 3.0) -> dict[str, Any]:
    results: dict[str, Any] = {}
    settings = [("sqlite", False), ("sqlite_with_worker", True)]
    if database_url:
        settings.append(("postgresql_gateway", False))
    for name, with_worker in settings:
        with tempfile.TemporaryDirectory(prefix="memevo-syncs-") as tmp:
            root = Path(tmp)
            extra = {"MEMEVO_DATABASE_URL": database_url} if name.startswith("postgresql") else {}
            env = bench_env(root / "home", HOME=str(root / "user"), **extra)
            (root / "user").mkdir()
            time_command([memevo_exe(), "status"], env=env)  # create and migrate once
            hooks = capture_hooks(root)
            server = nullcontext()
            if name.startswith("postgresql"):
                from tests.support.memevo_serve import MemevoServe

                server = MemevoServe(env, log=root / "serve.log")  # type: ignore[assignment]
            with server, running_worker(env, root, model_delay) if with_worker else nullcontext():
                for k, make in enumerate(hooks.values()):  # the first capture creates the files: not counted
                    argv, payload = make(20_000 + k)
                    time_command(argv, input_bytes=payload, env=env)
                syncs = {hook: count_syncs(*make(10_000 + k), env) for k, (hook, make) in enumerate(hooks.items())}
                bare: list[float] = []
                walls: dict[str, list[float]] = {hook: [] for hook in hooks}
                for i in range(runs + 2):
                    b = time_command([sys.executable, "-c", "import sqlite3"], env=env)
                    for hook, make in hooks.items():
                        argv, payload = make(i)
                        walls[hook].append(time_command(argv, input_bytes=payload, env=env))
                    bare.append(b)
            base = statistics.median(bare[2:])
            results[name] = {
                "bare_ms": round(base, 1),
                **{
                    hook: {
                        "syncs": syncs[hook],
                        "median_ms": round(statistics.median(walls[hook][2:]), 1),
                        "over_bare_ms": round(statistics.median(walls[hook][2:]) - base, 1),
                    }
                    for hook in hooks
                },
            }
    return results


def wal_growth(captures: int, with_worker: bool) -> dict[str, Any]:
    """``memory.db-wal``'s size over ``captures`` captures made as hooks make them."""
    from tests.support.processes import python_process

    code = f"""
import json, os
from pathlib import Path
from cli.hooks.entry import run_hook
home = Path(os.environ["MEMEVO_HOME"])
sizes = []
for i in range({captures}):
    payload = {{"schema": "memevo.hook/v1", "event": "turn_end", "cwd": "/tmp", "session_id": f"wal-{{i}}",
               "user_messages": [f"remember that service w{{i}} listens on port {{10000 + i % 50000}}"]}}
    run_hook(json.dumps(payload).encode(), "turn_end", None)
    if (i + 1) % max(1, {captures} // 10) == 0:
        wal = home / "memory.db-wal"
        sizes.append(wal.stat().st_size if wal.exists() else 0)
print(json.dumps(sizes))
"""
    with tempfile.TemporaryDirectory(prefix="memevo-wal-") as tmp:
        root = Path(tmp)
        env = bench_env(root / "home")
        time_command([memevo_exe(), "status"], env=env)
        with running_worker(env, root, 3.0) if with_worker else nullcontext():
            done = python_process(code, env=env, timeout=7200)
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        sizes = json.loads(done.stdout.strip().splitlines()[-1])
    return {"captures": captures, "wal_bytes_every_tenth": sizes, "max_wal_mb": round(max(sizes) / 2**20, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--wal-captures", type=int, default=0)
    parser.add_argument(
        "--model-delay",
        type=float,
        default=3.0,
        help="seconds the running worker's fake model takes to answer (a real model takes seconds)",
    )
    args = parser.parse_args()
    out: dict[str, Any] = {"hooks": measure(args.runs, args.database_url, args.model_delay)}
    if args.wal_captures:
        out["wal"] = {
            "without_worker": wal_growth(args.wal_captures, False),
            "with_worker": wal_growth(args.wal_captures, True),
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
