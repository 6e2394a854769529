"""Worker throughput: sources consolidated per minute by real ``huey_consumer`` processes.

On PostgreSQL (the default): 1, 2, 4 and 8 worker processes, split over two consumers
standing in for two machines (one consumer for a single worker), sharing ``PostgresHuey`` in
the store's database, against the loopback fake model answering at once and after 0.5 s.
Each run captures its sources, queues one nudge per source, then starts the consumers and
times them until every source is done. Figures per run: sources per minute, lease races
lost (consolidate tasks that found their source already taken: tasks run minus leases
taken; target 0) and model calls per source (target 1.0).

    python bench/worker_throughput.py [--database-url postgresql://…] [--jobs 200] [--slow-jobs 60]
    python bench/worker_throughput.py --sqlite          # the SQLite queue, 1 and 2 workers

The database URL defaults to ``MEMEVO_BENCH_DATABASE_URL``, else ``MEMEVO_TEST_DATABASE_URL``;
each run works in a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, bench_env  # noqa: E402

WORKER_COUNTS = (1, 2, 4, 8)
DEFAULT_URL = "postgresql://memevo@127.0.0.1:55432/memevo_dev"

CAPTURE = r"""
import sys
from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.paths import state_home
from memory_core.store.engines.database import Store
from workers.tasks import consolidate

n, tag = int(sys.argv[1]), sys.argv[2]
ids = []
with Store.open(state_home()) as store:
    for i in range(n):
        with store.transaction() as conn:
            ids.append(capture_source(conn, source_type="summary", origin="/bench", session_id=f"{tag}{i}",
                                      text=f"Session {tag}{i}: service {tag}{i} moved to port {2000 + i}",
                                      now=clock.now()).source_id)
for sid in ids:  # one nudge per source, queued before any consumer starts: pure draining
    consolidate(sid)
print(len(ids))
"""

STATES = r"""
import json
from memory_core.paths import state_home
from memory_core.store.engines.database import Store
with Store.open_readonly(state_home()) as store:
    done = store.conn.execute("SELECT COUNT(*) FROM sources WHERE state='done'").fetchone()[0]
    leases = store.conn.execute("SELECT COALESCE(SUM(attempt), 0) FROM sources").fetchone()[0]
print(json.dumps([int(done), int(leases)]))
"""

POLL = r"""
import sys, time
from memory_core.paths import state_home
from memory_core.store.engines.database import Store
n = int(sys.argv[1])
with Store.open_readonly(state_home()) as store:
    while store.conn.execute("SELECT COUNT(*) FROM sources WHERE state='done'").fetchone()[0] < n:
        time.sleep(0.05)
"""


def _python(code: str, env: dict[str, str], *args: str, timeout: float = 900) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise SystemExit(f"bench step failed:\n{done.stderr[-3000:]}")
    return done.stdout


def run(n: int, workers: int, model_url: str, env_extra: dict[str, str], tag: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        env = bench_env(
            home, MEMEVO_MODEL_URL=model_url, MEMEVO_MODEL="bench", MEMEVO_DAILY_MODEL_CALLS="1000000", **env_extra
        )
        env.pop("MEMEVO_QUEUE_URL", None)
        _python(CAPTURE, env, str(n), tag)
        exe = str(Path(sys.executable).with_name("huey_consumer"))
        split = [workers] if workers == 1 else [workers // 2, workers - workers // 2]
        logs = [Path(tmp) / f"consumer-{i}.log" for i in range(len(split))]
        started = time.perf_counter()
        procs = []
        for count, log in zip(split, logs, strict=True):
            with open(log, "wb") as handle:
                procs.append(
                    subprocess.Popen(
                        [exe, "workers.main.huey", "-k", "process", "-w", str(count), "-m", "0.2"],
                        env=env,
                        cwd=REPO,
                        stdout=handle,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        try:
            _python(POLL, env, str(n))
            elapsed = time.perf_counter() - started
        finally:
            for proc in procs:
                os.killpg(proc.pid, signal.SIGTERM)
            for proc in procs:
                proc.wait(timeout=30)
        done, leases = json.loads(_python(STATES, env))
        text = "".join(log.read_text(errors="replace") for log in logs)
        tasks_run = len(re.findall(r"workers\.tasks\.consolidate: \S+ executed in", text))
        return {"done": done, "seconds": round(elapsed, 1), "leases": leases, "tasks_run": tasks_run}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--jobs", type=int, default=200, help="sources per run against the zero-latency model")
    parser.add_argument("--slow-jobs", type=int, default=60, help="sources per run against the 0.5 s model")
    parser.add_argument("--sqlite", action="store_true", help="the SQLite queue (one machine) instead")
    args = parser.parse_args()
    from tests.support import pg_cluster
    from tests.support.fake_model import FakeModelProcess

    url = (
        args.database_url
        or os.environ.get("MEMEVO_BENCH_DATABASE_URL")
        or os.environ.get(pg_cluster.TEST_URL_VARIABLE)
        or DEFAULT_URL
    )
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for delay, n in ((0.0, args.jobs), (0.5, args.slow_jobs)):
            workdir = Path(tmp) / f"model-{delay}"
            workdir.mkdir()
            with FakeModelProcess(workdir, default_delay=delay) as model:
                for workers in (1, 2) if args.sqlite else WORKER_COUNTS:
                    env_extra: dict[str, str] = {}
                    schema = None
                    if not args.sqlite:
                        schema_url, schema = pg_cluster.fresh_schema_url(url)
                        env_extra["MEMEVO_DATABASE_URL"] = schema_url
                    before = model.request_count()
                    try:
                        figures = run(n, workers, model.base_url, env_extra, f"w{workers}d{delay}")
                    finally:
                        if schema is not None:
                            pg_cluster.drop_schema(url, schema)
                    calls = model.request_count() - before
                    row = {
                        "backend": "sqlite" if args.sqlite else "postgresql",
                        "model_delay_s": delay,
                        "workers": workers,
                        "consumers": 1 if workers == 1 else 2,
                        "sources": n,
                        "sources_per_minute": round(figures["done"] * 60 / figures["seconds"], 1),
                        "seconds": figures["seconds"],
                        "lease_races_lost": figures["tasks_run"] - figures["leases"],
                        "model_calls_per_source": round(calls / n, 3),
                    }
                    print(json.dumps(row), flush=True)
                    results.append(row)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
