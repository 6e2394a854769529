"""Producers for the reliability checks: child processes that each capture ``n`` turns through
the installed hook path (every tenth turn sent twice), and the count of turns stored per session
that the checks hold them to (exactly one each)."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.reliability.harness import REPO, Place

# argv: tag, turns, pause between turns (seconds), first port named in the turns' text.
PRODUCER = r"""
import json, sys, time
from bench.reliability.harness import hook_call

tag, n, pause, port = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
errors = 0
for i in range(n):
    payload = {"schema": "memevo.hook/v1", "event": "turn_end", "agent": "producer", "session_id": f"{tag}-{i}",
               "cwd": "/tmp", "user_messages": [f"remember that service {tag}{i} listens on port {port + i}"]}
    for _ in range(2 if i % 10 == 0 else 1):  # every tenth turn is sent twice
        result = hook_call(json.dumps(payload).encode(), "turn_end", None)
        if result.stderr or result.stdout:
            errors += 1
            print(result.stderr or result.stdout, file=sys.stderr)
    if pause:
        time.sleep(pause)
print(errors)
"""


def start_producers(
    env: dict[str, str], tag: str, count: int, captures: int, *, pause: float = 0.0, port: int = 1000
) -> list[subprocess.Popen[str]]:
    """``count`` producers, named ``TAG0``, ``TAG1``…, each capturing ``captures`` turns; each
    prints its number of hook errors on stdout and what the hook said on stderr."""
    return [
        subprocess.Popen(
            [sys.executable, "-c", PRODUCER, f"{tag}{k}", str(captures), str(pause), str(port)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(count)
    ]


def turns_per_session(place: Place) -> dict[str, int]:
    """Sources per session id: each turn must be exactly one."""
    counts: dict[str, int] = {}
    for (body,) in place.query("SELECT body FROM sources"):
        session = json.loads(body).get("session_id")
        counts[session] = counts.get(session, 0) + 1
    return counts


def finish_producers(procs: list[subprocess.Popen[str]], timeout: float) -> list[tuple[int, str]]:
    """Wait for each producer (it must exit 0): its number of hook errors and its stderr."""
    finished = []
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, err[-2000:]
        finished.append((int(out.strip() or 0), err))
    return finished
