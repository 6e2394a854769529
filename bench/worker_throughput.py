"""Worker throughput against a zero-latency loopback model: jobs per second per process.

Two figures in one run: the attempt loop in this process (lease, prompt, HTTP call,
validation, apply, complete), and a real ``huey_consumer`` with 1 and 2 process workers
draining nudges for already captured sources.

    python bench/worker_throughput.py [--jobs 300]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import REPO, bench_env  # noqa: E402


def capture_many(home: Path, n: int, tag: str) -> list[str]:
    from memory_core import clock
    from memory_core.capture.intake import capture_source
    from memory_core.store.database import Store

    ids = []
    with Store.open(home) as store:
        for i in range(n):
            with store.transaction() as conn:
                ids.append(
                    capture_source(
                        conn,
                        source_type="summary",
                        origin="/bench",
                        session_id=f"{tag}{i}",
                        text=f"Session {tag}{i}: service {tag}{i} moved to port {2000 + i}",
                        now=clock.now(),
                    ).source_id
                )
    return ids


def in_process(n: int, base_url: str) -> float:
    from memory_core.config import load_settings
    from workers.consolidate import consolidate_source

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ.update(
            {
                "MEMEVO_HOME": str(home),
                "MEMEVO_MODEL_URL": base_url,
                "MEMEVO_MODEL": "bench",
                "MEMEVO_DAILY_MODEL_CALLS": "1000000",
            }
        )
        ids = capture_many(home, n, "p")
        settings = load_settings()
        started = time.perf_counter()
        for sid in ids:
            assert consolidate_source(settings, sid).status == "done"
        return n / (time.perf_counter() - started)


def with_consumer(n: int, base_url: str, workers: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        env = bench_env(home, MEMEVO_MODEL_URL=base_url, MEMEVO_MODEL="bench", MEMEVO_DAILY_MODEL_CALLS="1000000")
        os.environ["MEMEVO_HOME"] = str(home)
        ids = capture_many(home, n, f"c{workers}")
        # Enqueue the nudges before the consumer starts, so the figure is pure draining.
        code = "import sys; from workers.tasks import consolidate\nfor sid in sys.argv[1:]: consolidate(sid)"
        subprocess.run([sys.executable, "-c", code, *ids], env=env, cwd=REPO, check=True)
        exe = str(Path(sys.executable).with_name("huey_consumer"))
        started = time.perf_counter()
        proc = subprocess.Popen(
            [exe, "workers.main.huey", "-k", "process", "-w", str(workers), "-n", "-m", "0.2"],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            while True:
                conn = sqlite3.connect(home / "memory.db", timeout=30)
                done = conn.execute("SELECT COUNT(*) FROM sources WHERE state='done'").fetchone()[0]
                conn.close()
                if done == n:
                    break
                time.sleep(0.05)
            elapsed = time.perf_counter() - started
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=300)
    args = parser.parse_args()
    from tests.support.fake_model import FakeModelServer

    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        os.environ["MEMEVO_HOME"] = str(Path(tmp) / "unused")
        result = {
            "jobs": args.jobs,
            "in_process_jobs_per_s": round(in_process(args.jobs, server.base_url), 1),
            "consumer_1_worker_jobs_per_s": round(with_consumer(args.jobs, server.base_url, 1), 1),
            "consumer_2_workers_jobs_per_s": round(with_consumer(args.jobs, server.base_url, 2), 1),
        }
        result["consumer_2_workers_per_process"] = round(result["consumer_2_workers_jobs_per_s"] / 2, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
