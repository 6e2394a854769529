"""Hostile hook input: whole `memevo hook` processes given one very long word, against an
ordinary message of 16,800 characters, interleaved in one run.

    python bench/hostile_input.py [--runs 3] [--events user_prompt,turn_end,compaction]
                                  [--repo DIR] [--timeout 120] [--json]

The state dir is seeded through the hooks themselves (a compaction summary with labelled
lines, so there are claims to recall). Cases: a single token of 2,000, 20,000 and 60,000
letters, the same 60,000 characters as a dotted run (``a.a.a…``) and as newlines, and
16,800 characters of ordinary words. ``--repo`` times another checkout (say the previous
commit, exported with ``git archive``) with its own state dir; its interpreter is this one.
A process that exceeds ``--timeout`` seconds is reported as ``>timeout``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

WORDS = (
    "the staging database listens on port 5433 and the deploy script runs every friday after the "
    "tests pass so please check the cache settings before you change the timeout of the worker"
).split()


def ordinary(chars: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)[:chars]


CASES: dict[str, str] = {
    "token_2k": "a" * 2_000,
    "token_20k": "a" * 20_000,
    "token_60k": "a" * 60_000,
    "dotted_60k": "a." * 30_000,
    "newlines_60k": "\n" * 60_000,
    "ordinary_16.8k": ordinary(16_800),
}


def payload(event: str, text: str, i: int) -> bytes:
    fields: dict[str, object] = {"schema": "memevo.hook/v1", "event": event, "session_id": f"bench-{i}", "cwd": "/tmp"}
    if event == "user_prompt":
        fields["prompt"] = text
    elif event == "turn_end":
        fields["user_messages"] = ["remember that " + text]
    else:
        fields["summary"] = "Decision: " + text
    return json.dumps(fields).encode("utf-8")


def run_hook(repo: Path, env: dict[str, str], event: str, data: bytes, timeout: float) -> float | None:
    """Wall milliseconds of one hook process, or ``None`` when it ran past ``timeout``."""
    started = time.perf_counter()
    try:
        subprocess.run(
            [sys.executable, "-m", "cli", "hook", event],
            input=data,
            env=env,
            cwd=repo,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    return (time.perf_counter() - started) * 1000


def seed(repo: Path, env: dict[str, str]) -> None:
    lines = [f"- Fact: service {i} of the staging cluster listens on port {5400 + i}" for i in range(40)]
    data = json.dumps(
        {
            "schema": "memevo.hook/v1",
            "event": "compaction",
            "session_id": "seed",
            "cwd": "/tmp",
            "summary": "Seed.\n" + "\n".join(lines),
        }
    ).encode("utf-8")
    subprocess.run(
        [sys.executable, "-m", "cli", "hook", "compaction"],
        input=data,
        env=env,
        cwd=repo,
        check=True,
        capture_output=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--events", default="user_prompt,turn_end,compaction")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to time (default: this one)")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    repo = args.repo.resolve()
    events = [e for e in args.events.split(",") if e]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.update({"MEMEVO_HOME": str(Path(tmp) / "home"), "PYTHONPATH": str(repo)})
        env = {k: v for k, v in env.items() if not k.startswith("MEMEVO_") or k == "MEMEVO_HOME"}
        seed(repo, env)
        samples: dict[tuple[str, str], list[float | None]] = {}
        n = 0
        for _ in range(args.runs):
            for name, text in CASES.items():
                for event in events:
                    n += 1
                    key = (name, event)
                    if None in samples.get(key, []):
                        continue  # once past the timeout, not again
                    samples.setdefault(key, []).append(
                        run_hook(repo, env, event, payload(event, text, n), args.timeout)
                    )
    result: dict[str, dict[str, str | float]] = {}
    for (name, event), values in samples.items():
        done = [v for v in values if v is not None]
        shown: str | float = f">{args.timeout:.0f}s" if len(done) < len(values) else round(statistics.median(done), 1)
        result.setdefault(name, {})[event] = shown
    report = {"repo": str(repo), "runs": args.runs, "median_ms": result}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{repo}  (median ms of a whole hook process, {args.runs} run(s))")
    print(f"{'case':<16}" + "".join(f"{e:>14}" for e in events))
    for name in CASES:
        row = result.get(name, {})
        print(f"{name:<16}" + "".join(f"{row.get(e, '-')!s:>14}" for e in events))


if __name__ == "__main__":
    main()
