"""Hook fuzzing: hypothesis-generated hostile input for every event and every adapter.

    python -m bench.reliability.hook_fuzz [--examples 2000] [--random] [--no-processes]

Most examples run in this process through :func:`cli.hooks.entry.run_hook`, the
function the `memevo hook` command calls with what it read from stdin; a handful more run as
real `memevo hook` processes. Inputs (drawn by :mod:`bench.reliability.hook_payloads`): the
generic protocol, Claude Code, Codex, Gemini and Pi payloads and arbitrary JSON, with values
of every JSON type, hostile strings (NUL, controls, bidi overrides, lone surrogates,
60,000-character words, walls of newlines, secrets) and nesting, optionally broken as bytes
(invalid UTF-8, truncation); hostile transcripts. Every call must return with no internal
error and no traceback, one stderr line at most, stdout empty or a bounded digest, within a
time bound; at the end every row stored before the fuzzing is unchanged and the database
passes its integrity checks.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from bench.reliability.harness import REPO, integrity, memevo_env, print_figures, query, state_home
from bench.reliability.hook_payloads import hostile_transcripts, inputs

# A digest is at most 2,048 bytes; an agent's envelope escapes it as JSON (at most 6 bytes
# per byte for control characters, far less in practice).
STDOUT_MAX_BYTES = 6 * 2_048 + 256
CALL_SECONDS_MAX = 5.0
PROCESS_SECONDS_MAX = 15.0


def _seed(home: Path) -> None:
    """Claims and sources the fuzzing must leave exactly as they are."""
    from cli.hooks.entry import run_hook

    lines = "\n".join(f"- Fact: service {i} of the staging cluster listens on port {5400 + i}" for i in range(20))
    for i, payload in enumerate(
        [
            {"schema": "memevo.hook/v1", "event": "compaction", "session_id": "seed", "cwd": "/tmp", "summary": lines},
            {
                "schema": "memevo.hook/v1",
                "event": "turn_end",
                "session_id": "seed",
                "cwd": "/tmp",
                "user_messages": ["remember that the deploy runs on fridays"],
            },
        ]
    ):
        result = run_hook(json.dumps(payload).encode(), payload["event"], None)
        assert result == ("", ""), (i, result)


def _snapshot(home: Path) -> dict[str, Any]:
    return {
        "memories": dict(query(home, "SELECT id, body FROM memories")),
        "sources": {row[0]: row[1:] for row in query(home, "SELECT id, body, state, dedupe_key FROM sources")},
    }


def check_call(raw: bytes, event: str | None, adapter: str | None, stats: dict[str, Any]) -> None:
    """One in-process call and its invariants."""
    from cli.hooks.entry import run_hook

    started = time.monotonic()
    result = run_hook(raw, event, adapter)
    seconds = time.monotonic() - started
    stats["calls"] += 1
    stats["max_call_s"] = max(stats["max_call_s"], seconds)
    stats["with_stdout"] += bool(result.stdout)
    stats["with_stderr"] += bool(result.stderr)
    assert "internal error" not in result.stderr, (result.stderr, raw[:300], event, adapter)
    assert "Traceback" not in result.stderr and "\n" not in result.stderr, result.stderr
    assert len(result.stdout.encode("utf-8")) <= STDOUT_MAX_BYTES, len(result.stdout)
    if result.stdout:
        assert result.stdout.startswith(("<memevo-recall>", "{")), result.stdout[:200]
    assert seconds <= CALL_SECONDS_MAX, (seconds, raw[:300], event, adapter)


PROCESS_CASES: list[tuple[str, list[str], bytes]] = [
    ("invalid-utf8", ["hook", "compaction"], b'{"schema": "memevo.hook/v1", "summary": "\xff\xfe bad \xc0\x80"}'),
    (
        "huge-3.9MB",
        ["hook", "turn_end"],
        json.dumps({"schema": "memevo.hook/v1", "user_messages": ["remember " + "a" * 60_000] * 64}).encode()[
            :3_900_000
        ],
    ),
    (
        "controls-bidi-nul",
        ["hook", "user_prompt"],
        json.dumps(
            {"schema": "memevo.hook/v1", "prompt": "\x00\x1b[2J\u202e\u2066port?\ufeff", "cwd": "/tmp\x00"}
        ).encode(),
    ),
    ("deep-nesting", ["hook"], b'{"hook_event_name": "Stop", "x": ' + b"[" * 100_000 + b"}"),
    (
        "lone-surrogates",
        ["hook"],
        json.dumps(
            {
                "hook_event_name": "UserPromptSubmit",
                "session_id": "s\udc00",
                "prompt": "port \udc00 5433?",
                "cwd": "/tmp",
                "transcript_path": "/nonexistent",
            }
        ).encode(),
    ),
    (
        "60k-token-prompt",
        ["hook", "user_prompt"],
        json.dumps({"schema": "memevo.hook/v1", "prompt": "a" * 60_000, "cwd": "/tmp"}).encode(),
    ),
    ("not-json", ["hook", "--agent", "claude-code"], b"\x00\x01\x02 definitely not json"),
]


def run_processes(home: Path) -> dict[str, Any]:
    """The same invariants for a few whole `memevo hook` processes."""
    worst = 0.0
    for name, argv, data in PROCESS_CASES:
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "cli", *argv],
            input=data,
            capture_output=True,
            cwd=REPO,
            env=memevo_env(home),
            timeout=120,
        )
        seconds = time.monotonic() - started
        worst = max(worst, seconds)
        stderr = result.stderr.decode("utf-8", errors="replace")
        assert result.returncode == 0, (name, result.returncode, stderr)
        assert "Traceback" not in stderr and "internal error" not in stderr and stderr.count("\n") <= 1, (name, stderr)
        assert len(result.stdout) <= STDOUT_MAX_BYTES, (name, len(result.stdout))
        assert seconds <= PROCESS_SECONDS_MAX, (name, seconds)
    return {"processes": len(PROCESS_CASES), "max_process_s": round(worst, 2)}


def run(
    examples: int = 300, *, processes: bool = True, derandomize: bool = True, workdir: Path | None = None
) -> dict[str, Any]:
    """Fuzz; raises AssertionError (with the failing example) when an invariant breaks."""
    stats: dict[str, Any] = {"calls": 0, "max_call_s": 0.0, "with_stdout": 0, "with_stderr": 0}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memevo-fuzz-", dir=workdir) as tmp:
        root = Path(tmp)
        home = root / "home"
        transcripts = hostile_transcripts(root / "transcripts")
        with state_home(home):
            _seed(home)
            before = _snapshot(home)

            @settings(
                max_examples=examples,
                deadline=None,
                derandomize=derandomize,
                database=None,
                suppress_health_check=list(HealthCheck),
                print_blob=True,
            )
            @given(inputs(transcripts))
            def fuzz(case: tuple[bytes, str | None, str | None]) -> None:
                check_call(*case, stats)

            fuzz()
            figures: dict[str, Any] = {"examples": examples, **stats}
            if processes:
                figures.update(run_processes(home))
        after = _snapshot(home)
        changed = [k for k, v in before["memories"].items() if after["memories"].get(k) != v]
        changed += [k for k, v in before["sources"].items() if after["sources"].get(k) != v]
        checked = integrity(home)
        figures.update(
            {
                "rows_before": len(before["memories"]) + len(before["sources"]),
                "rows_changed": len(changed),
                "rows_added": len(after["memories"])
                + len(after["sources"])
                - len(before["memories"])
                - len(before["sources"]),
                "integrity": checked,
                "max_call_s": round(stats["max_call_s"], 3),
                "seconds": round(time.monotonic() - started, 1),
            }
        )
    assert not changed, changed
    assert checked["sqlite"] and checked["rows_ok"], checked
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2_000)
    parser.add_argument("--random", action="store_true", help="new random examples instead of the fixed sequence")
    parser.add_argument("--no-processes", action="store_true")
    args = parser.parse_args()
    print_figures("hook_fuzz", run(args.examples, processes=not args.no_processes, derandomize=not args.random))


if __name__ == "__main__":
    main()
