"""What ``bench/hooks.py`` measures besides wall clock: recall in process per query shape, the
import time of one hook process and its peak memory."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench._util import REPO


def in_process(home: Path, shapes: dict[str, list[list[str]]], now: float, repeat: int) -> dict[str, Any]:
    """Per query shape: median milliseconds of :func:`turn_recall` (after one warm-up pass) and
    the work behind them, averaged over its queries: candidates matched and scored exactly,
    and how many queries stopped at a cap unproven. Where the store repeats content, automatic
    recall works on bodies (docs/recall.md, "Speed"): matched counts bodies, scored counts
    the bodies scored plus the claims read to choose among the band's copies."""
    from memory_core.recall.service import turn_recall
    from memory_core.store.engines.database import Store

    out: dict[str, Any] = {}
    with Store.open_readonly(home) as store:
        for name, queries in shapes.items():
            lifecycles = []
            for texts in queries:
                result = turn_recall(store.conn, texts, now=now, session_is_fresh=len(texts) == 1)
                notes = result.diagnostics.get("notes", [])
                lifecycles.append((result.diagnostics["lifecycle"], any("ambiguous query" in n for n in notes)))
            samples = []
            for _ in range(repeat):
                for texts in queries:
                    started = time.perf_counter()
                    turn_recall(store.conn, texts, now=now, session_is_fresh=len(texts) == 1)
                    samples.append((time.perf_counter() - started) * 1000)
            out[name] = {
                "median_ms": round(statistics.median(samples), 2),
                "matched": round(statistics.fmean(lc["matched"] for lc, _ in lifecycles)),
                "scored": round(statistics.fmean(lc["scored"] for lc, _ in lifecycles)),
                "capped": sum(1 for _, capped in lifecycles if capped),
            }
    return out


def import_profile(argv: list[str], payload: bytes, env: dict[str, str]) -> dict[str, Any]:
    """``-X importtime`` of one hook process: modules loaded, total import time, the costliest."""
    done = subprocess.run(
        argv, input=payload, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, capture_output=True, cwd=REPO
    )
    rows = []
    for line in done.stderr.decode(errors="replace").splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)", line)
        if match:
            rows.append((int(match.group(1)), int(match.group(2)), len(match.group(3)) // 2, match.group(4)))
    top_level = sum(cumulative for _, cumulative, depth, _ in rows if depth == 0)
    costly = sorted(rows, reverse=True)[:8]
    return {
        "modules": len(rows),
        "import_ms": round(top_level / 1000, 1),
        "costliest_self_ms": {name: round(own / 1000, 1) for own, _, _, name in costly},
    }


def peak_kb(argv: list[str], payload: bytes, env: dict[str, str]) -> int:
    """Peak resident memory of one process (``getrusage`` of the children of a fresh helper)."""
    helper = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read(), stdout=subprocess.DEVNULL,"
        " stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", helper, *argv], input=payload, env=env, capture_output=True, check=True, cwd=REPO
    )
    return int(done.stdout.strip())
