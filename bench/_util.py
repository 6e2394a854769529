"""Shared helpers for the benchmarks (not part of the package)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def memevo_exe() -> str:
    """The installed console script beside this interpreter."""
    return str(Path(sys.executable).with_name("memevo"))


def time_command(argv: list[str], *, input_bytes: bytes | None = None, env: dict[str, str] | None = None) -> float:
    """Wall time of one process run, in milliseconds."""
    started = time.perf_counter()
    subprocess.run(
        argv, input=input_bytes, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=REPO
    )
    return (time.perf_counter() - started) * 1000


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[int(len(ordered) * 0.9) - 1], 1),
        "min_ms": round(ordered[0], 1),
    }


def bench_env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["MEMEVO_HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env
