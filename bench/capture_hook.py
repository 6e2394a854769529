"""A whole capture hook process (sanitize, write the source, enqueue a nudge) against a bare
`python -c 'import sqlite3'`, interleaved in one run on this machine.

    python bench/capture_hook.py [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import bench_env, memevo_exe, summary, time_command  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = bench_env(Path(tmp) / "home")
        time_command([memevo_exe(), "status"], env=env)  # create and migrate once
        bare, hook, turn = [], [], []
        for i in range(args.runs):
            bare.append(time_command([sys.executable, "-c", "import sqlite3"], env=env))
            summary_payload = {
                "schema": "memevo.hook/v1",
                "event": "compaction",
                "cwd": tmp,
                "session_id": f"bench-{i}",
                "summary": f"Session {i}.\n- Decision: benchmark run {i} uses WAL\n" + "text " * 400,
            }
            hook.append(
                time_command(
                    [memevo_exe(), "hook", "compaction"], input_bytes=json.dumps(summary_payload).encode(), env=env
                )
            )
            turn_payload = {
                "schema": "memevo.hook/v1",
                "event": "turn_end",
                "cwd": tmp,
                "session_id": f"b-{i}",
                "user_messages": ["please run the tests", f"remember that build {i} needs node 20"],
            }
            turn.append(
                time_command([memevo_exe(), "hook", "turn_end"], input_bytes=json.dumps(turn_payload).encode(), env=env)
            )
    result = {
        "bare_python_import_sqlite3": summary(bare),
        "hook_compaction": summary(hook),
        "hook_turn_end": summary(turn),
    }
    base = result["bare_python_import_sqlite3"]["median_ms"]
    for key in ("hook_compaction", "hook_turn_end"):
        result[key]["ratio_to_bare"] = round(result[key]["median_ms"] / base, 2)
        result[key]["extra_ms"] = round(result[key]["median_ms"] - base, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
