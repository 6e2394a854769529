"""Command hooks on SQLite, doing their own work against handing it to a warm `memevo serve`
(the warm path, docs/hooks.md), on stores whose claims differ, in one interleaved run.

    python bench/warm_path.py [--sizes 10000,100000] [--runs 11] [--cache DIR] [--questions 3]

Each round runs, for every size: a bare ``python -c 'import sqlite3'``; the generic
``user_prompt`` hook with ``MEMEVO_HOOK_WARM=0`` (its own work) and with ``memevo serve``
running for the state dir (the warm path); the ``turn_end`` hook with a new "remember that …"
statement both ways. The digests of both ways are compared byte for byte first. Medians after
two discarded warm-up rounds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import distinct_store  # noqa: E402
from bench._util import summary, time_command  # noqa: E402
from bench.gateway_hooks import hook_env, start_serve  # noqa: E402
from bench.hook_payloads import generic  # noqa: E402
from bench.hook_stores import copy_home, matching_questions  # noqa: E402

WARMUP = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--cache", type=Path, help="keep the built stores here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    hook = [sys.executable, "-m", "cli", "hook"]
    bare = [sys.executable, "-c", "import sqlite3"]
    with tempfile.TemporaryDirectory(prefix="memevo-warm-") as tmp_name:
        tmp = Path(tmp_name)
        cache = args.cache or tmp / "cache"
        homes: dict[int, Path] = {}
        servers: list[subprocess.Popen[bytes]] = []
        now = 0.0
        for size in sizes:
            built, _, now = distinct_store.built_home(cache, "distinct", size)
            homes[size] = copy_home(built, tmp / f"home-{size}")
        questions = matching_questions(distinct_store.questions(), list(homes.values()), now, args.questions)
        if not questions:
            raise SystemExit("no question prints a digest at every size")
        try:
            for size, home in homes.items():
                servers.append(start_serve(home, tmp / f"serve-{size}.log"))
                for q in questions:  # the warm path answers exactly as the hook itself
                    payload = generic("user_prompt", "/work/app", prompt=q)
                    own = subprocess.run(
                        hook + ["user_prompt"],
                        input=payload,
                        env=hook_env(home) | {"MEMEVO_HOOK_WARM": "0"},
                        capture_output=True,
                        check=True,
                    ).stdout
                    warm = subprocess.run(
                        hook + ["user_prompt"], input=payload, env=hook_env(home), capture_output=True, check=True
                    ).stdout
                    assert own == warm and own, (size, q)
            samples: dict[str, list[float]] = {"bare": []}
            for rnd in range(WARMUP + args.runs):
                keep = rnd >= WARMUP
                took = time_command(bare)
                if keep:
                    samples["bare"].append(took)
                for size, home in homes.items():
                    q = questions[rnd % len(questions)]
                    for way, extra in (("own", {"MEMEVO_HOOK_WARM": "0"}), ("warm", {})):
                        env = hook_env(home) | extra
                        prompt = generic("user_prompt", "/work/app", prompt=q)
                        said = generic(
                            "turn_end", "/work/app", user_messages=[f"remember that build {rnd} {way} runs on node 22"]
                        )
                        for name, argv, payload in (
                            (f"user_prompt_{way}@{size}", hook + ["user_prompt"], prompt),
                            (f"turn_end_{way}@{size}", hook + ["turn_end"], said),
                        ):
                            took = time_command(argv, input_bytes=payload, env=env)
                            if keep:
                                samples.setdefault(name, []).append(took)
        finally:
            for process in servers:
                process.terminate()
                process.wait(timeout=30)
    timings = {name: summary(values) for name, values in samples.items()}
    bare_ms = timings["bare"]["median_ms"]
    over = {name: round(t["median_ms"] - bare_ms, 1) for name, t in timings.items() if name != "bare"}
    print(json.dumps({"runs": args.runs, "questions": questions, "timings": timings, "over_bare_ms": over}, indent=2))


if __name__ == "__main__":
    main()
