"""What the standing digest and the checkout check cost a hook, as whole processes.

Each case is a real ``memevo hook`` process against a store of ``--claims`` unrelated claims
(other projects) plus the project's own, in a real git checkout, interleaved with a bare
``python -c 'import sqlite3'`` in one loop (``--runs`` rounds) so the machine's load falls on
all alike. Reported: median and fastest milliseconds, and the median over bare.

- Claude Code ``SessionStart`` (recovery nudge and the standing digest) with 0, 10 and 100
  standing candidates (preferences and decisions of the project), and with the digest off;
- the per-turn ``user_prompt`` hook (generic, a session already given its standing digest)
  whose recalled claims cite paths to check in the checkout, beside the same claims without
  paths.

Run: ``.venv/bin/python bench/standing.py [--runs 15] [--claims 10000]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import bench_env, memevo_exe  # noqa: E402
from memory_core import clock  # noqa: E402
from memory_core.records import new_memory  # noqa: E402
from memory_core.store.engines.database import Store  # noqa: E402
from memory_core.store.tables.memories import put_memory  # noqa: E402

DAY = 86_400.0


def make_checkout(root: Path) -> Path:
    repo = root / "shop"
    (repo / "scripts").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    for i in range(20):
        (repo / "scripts" / f"task{i}.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (repo / "package.json").write_text(json.dumps({"scripts": {f"job{i}": "true" for i in range(20)}}))
    return repo


def build_store(home: Path, repo: Path, standing: int, other: int, cited: bool, now: float) -> None:
    origin = str(repo.resolve())
    with Store.open(home) as store, store.transaction() as conn:
        for i in range(other):
            put_memory(
                conn,
                new_memory(
                    origin=f"/srv/project{i % 50}",
                    kind="fact",
                    source_id=None,
                    evidence=None,
                    content=f"Service {i} of the fleet listens on port {10000 + i} behind the gateway.",
                    now=now - (i % 300) * DAY,
                ),
            )
        for i in range(standing):
            kind = "preference" if i % 2 else "decision"
            content = (
                f"Convention {i}: run `scripts/task{i % 20}.sh` and `npm run job{i % 20}` before committing."
                if cited
                else f"Convention {i}: keep module {i} small and tested before committing."
            )
            put_memory(
                conn,
                new_memory(
                    origin=origin, kind=kind, source_id=None, evidence=None, content=content, now=now - (i % 30) * DAY
                ),
            )
        for i in range(3):
            content = (
                f"The billing deploy step {i} runs `scripts/task{i}.sh` from the checkout."
                if cited
                else f"The billing deploy step {i} runs the release task from the checkout."
            )
            put_memory(
                conn,
                new_memory(origin=origin, kind="fact", source_id=None, evidence=None, content=content, now=now - DAY),
            )


def run(argv: list[str], payload: bytes | None, env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        argv, input=payload, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=cwd
    )
    return (time.perf_counter() - started) * 1000


def in_process(root: Path, repo: Path, now: float, repeat: int = 200) -> None:
    """The work itself, imports aside: the standing digest per store, and the per-turn check of
    three claims citing paths (answers forgotten each time, as a new hook process starts)."""
    from memory_core.recall.checkout_check import checkout_check_for, forget_answers
    from memory_core.reports.standing_view import standing_for

    print(f"{'in process (median of ' + str(repeat) + ')':<58} {'µs':>8}")
    for standing in (0, 10, 100):
        home = root / f"home-{standing}"
        with Store.open_readonly(home) as store:
            times = []
            for _ in range(repeat):
                forget_answers()
                started = time.perf_counter()
                result = standing_for(store.conn, home, str(repo), now)
                times.append((time.perf_counter() - started) * 1e6)
        label = f"standing digest, {standing} candidates ({len(result.shown)} shown)"
        print(f"{label:<58} {statistics.median(times):8.0f}")
    home = root / "home-10"
    contents = [f"The billing deploy step {i} runs `scripts/task{i}.sh` and `npm run job{i}`." for i in range(3)]
    with Store.open_readonly(home) as store:
        times = []
        for _ in range(repeat):
            forget_answers()
            started = time.perf_counter()
            check = checkout_check_for(store.conn, str(repo), home)
            assert check is not None
            for content in contents:
                check(str(repo.resolve()), content)
            times.append((time.perf_counter() - started) * 1e6)
    print(f"{'per-turn checkout check: project, 3 claims citing paths':<58} {statistics.median(times):8.0f}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument(
        "--base",
        metavar="DIR",
        help="another build's source tree (e.g. `git archive` of the parent): its hooks join the loop, A/B",
    )
    args = parser.parse_args()
    now = clock.now()
    memevo = memevo_exe()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = make_checkout(root)
        cases: list[tuple[str, list[str], bytes | None, dict[str, str]]] = [
            ("bare python -c 'import sqlite3'", [sys.executable, "-c", "import sqlite3"], None, bench_env(root / "x")),
        ]
        start = {
            "session_id": "bench",
            "transcript_path": "/nonexistent",
            "cwd": str(repo),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        for standing in (0, 10, 100):
            home = root / f"home-{standing}"
            build_store(home, repo, standing, args.claims, cited=True, now=now)
            env = bench_env(home)
            cases.append(
                (
                    f"SessionStart, {standing} standing candidates",
                    [memevo, "hook", "--agent", "claude-code"],
                    json.dumps(start).encode(),
                    env,
                )
            )
            if standing == 100:
                cases.append(
                    (
                        "SessionStart, 100 candidates, standing_digest off",
                        [memevo, "hook", "--agent", "claude-code"],
                        json.dumps(start).encode(),
                        bench_env(home, MEMEVO_STANDING_DIGEST="off"),
                    )
                )
        prompt = {
            "schema": "memevo.hook/v1",
            "event": "user_prompt",
            "session_id": "given",
            "cwd": str(repo),
            "prompt": "how does the billing deploy step run?",
        }
        for cited in (True, False):
            home = root / f"turn-{cited}"
            build_store(home, repo, 10, args.claims, cited=cited, now=now)
            sessions = home / "sessions"
            # A session already given its standing digest: the turn pays only its own recall.
            from cli.hooks.session_stash import write_standing

            write_standing(home, "given", [], now)
            assert sessions.is_dir()
            label = "user_prompt, 3 recalled claims citing paths" if cited else "user_prompt, same claims, no paths"
            cases.append((label, [memevo, "hook", "user_prompt"], json.dumps(prompt).encode(), bench_env(home)))
        in_process(root, repo, now)
        if args.base:
            # The same hooks from the other build's tree, on the same stores (``python -m cli``
            # with that tree first on the path).
            base = [sys.executable, "-m", "cli"]
            for label, argv, payload, env in list(cases[1:]):
                if "standing_digest off" in label:
                    continue
                base_env = {**env, "PYTHONPATH": args.base}
                cases.append((f"base: {label}", [*base, *argv[1:]], payload, base_env))
        samples: dict[str, list[float]] = {label: [] for label, *_ in cases}
        for argv_case in cases:  # warm each once (bytecode, page cache)
            run(argv_case[1], argv_case[2], argv_case[3], repo)
        for _ in range(args.runs):
            for label, argv, payload, env in cases:
                samples[label].append(run(argv, payload, env, repo))
        bare = statistics.median(samples[cases[0][0]])
        print(f"{'case':<58} {'median':>8} {'fastest':>8} {'over bare':>10}")
        for label, values in samples.items():
            median = statistics.median(values)
            print(f"{label:<58} {median:8.1f} {min(values):8.1f} {median - bare:+10.1f}")


if __name__ == "__main__":
    main()
