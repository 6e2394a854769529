"""Concurrency: producer processes capture through the hook entry while two worker processes
consolidate; every count must come out exact.

    python -m bench.reliability.concurrency [--producers 8] [--captures 250] [--workers 2]

Each producer is its own interpreter calling the hook command's entry function
(:func:`cli.hooks.entry.run_hook`) for ``captures`` distinct turns with an explicit
cue, plus a second time for every tenth one (a re-sent turn, captured once). A consumer with
``workers`` process workers runs throughout. Figures: sources = producers x captures, all
done, one claim and one model request per source, no hook errors, integrity ok.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.reliability.harness import (
    REPO,
    Consumer,
    claims_per_source,
    integrity,
    memevo_env,
    print_figures,
    query,
    source_states,
    wait_until,
)

PRODUCER = r"""
import json, sys
from cli.hooks.entry import run_hook

tag, n = sys.argv[1], int(sys.argv[2])
errors = 0
for i in range(n):
    payload = {"schema": "memevo.hook/v1", "event": "turn_end", "agent": "producer", "session_id": f"{tag}-{i}",
               "cwd": "/tmp", "user_messages": [f"remember that service {tag}{i} listens on port {1000 + i}"]}
    for _ in range(2 if i % 10 == 0 else 1):  # every tenth turn is sent twice
        result = run_hook(json.dumps(payload).encode(), "turn_end", None)
        errors += bool(result.stderr or result.stdout)
print(errors)
"""


def run(producers: int = 4, captures: int = 25, workers: int = 2, *, workdir: Path | None = None) -> dict[str, Any]:
    """Run the concurrency check; raises AssertionError when a count is off."""
    from tests.support.fake_model import FakeModelProcess

    expected = producers * captures
    with tempfile.TemporaryDirectory(prefix="memevo-concurrency-", dir=workdir) as tmp:
        root = Path(tmp)
        home = root / "home"
        started = time.monotonic()
        with FakeModelProcess(root) as model:
            env = memevo_env(home, MEMEVO_MODEL_URL=model.base_url, MEMEVO_MODEL="fake")
            with Consumer(env, root / "consumer.log", workers=workers):
                procs = [
                    subprocess.Popen(
                        [sys.executable, "-c", PRODUCER, f"p{k}", str(captures)],
                        cwd=REPO,
                        env=env,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                    for k in range(producers)
                ]
                hook_errors = 0
                for proc in procs:
                    out, err = proc.communicate(timeout=600)
                    assert proc.returncode == 0, err[-2000:]
                    hook_errors += int(out.strip() or 0)
                captured_at = round(time.monotonic() - started, 1)
                wait_until(lambda: source_states(home).get("done", 0) >= expected, 600, "every source done", every=0.25)
                time.sleep(1.0)  # a duplicate nudge would show up as an extra request
            requests = model.request_count()
        per_source = claims_per_source(home)
        sources = [sid for (sid,) in query(home, "SELECT id FROM sources")]
        checked = integrity(home)
        seconds = time.monotonic() - started
        figures = {
            "producers": producers,
            "captures_each": captures,
            "workers": workers,
            "hook_calls": expected + producers * len(range(0, captures, 10)),
            "hook_errors": hook_errors,
            "sources": len(sources),
            "done": source_states(home).get("done", 0),
            "claims": sum(per_source.values()),
            "model_requests": requests,
            "integrity": checked,
            "captured_after_s": captured_at,
            "seconds": round(seconds, 1),
            "consolidations_per_s": round(expected / seconds, 1),
        }
    assert figures["hook_errors"] == 0, figures
    assert figures["sources"] == figures["done"] == figures["claims"] == figures["model_requests"] == expected, figures
    assert all(per_source.get(sid) == 1 for sid in sources), figures
    assert checked["sqlite"] and checked["rows_ok"], figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--producers", type=int, default=8)
    parser.add_argument("--captures", type=int, default=250)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print_figures("concurrency", run(args.producers, args.captures, args.workers))


if __name__ == "__main__":
    main()
