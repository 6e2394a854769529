"""Hook fuzzing: hypothesis-generated hostile input for every event and every adapter.

    python -m bench.reliability.hook_fuzz [--examples 2000] [--random] [--no-processes]
        [--database-url postgresql://…]

Most examples run in this process through :func:`harness.hook_call`, what the `memevo hook`
command does with what it read from stdin (on SQLite the hook's own entry function; on
PostgreSQL a request to `memevo serve`, started here, which handles it); a handful more run
as real `memevo hook` processes. Inputs (drawn by :mod:`bench.reliability.hook_payloads`): the
generic protocol, Claude Code, Codex, Gemini and Pi payloads and arbitrary JSON, with values
of every JSON type, hostile strings (NUL, controls, bidi overrides, lone surrogates,
60,000-character words, walls of newlines, secrets) and nesting, optionally broken as bytes
(invalid UTF-8, truncation); hostile transcripts. Every call must return with no internal
error and no traceback, one stderr line at most, stdout empty or a bounded digest, within a
time bound; at the end every row stored before the fuzzing is unchanged, the store passes
its integrity checks and no log holds a traceback.
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

from bench.reliability.harness import (
    REPO,
    Place,
    gateway,
    hook_call,
    integrity,
    logged_tracebacks,
    new_place,
    print_figures,
)
from bench.reliability.hook_payloads import hostile_transcripts, inputs

# A digest is at most 2,048 bytes; an agent's envelope escapes it as JSON (at most 6 bytes
# per byte for control characters, far less in practice).
STDOUT_MAX_BYTES = 6 * 2_048 + 256
CALL_SECONDS_MAX = 5.0
PROCESS_SECONDS_MAX = 15.0


def _seed() -> None:
    """Claims and sources the fuzzing must leave exactly as they are (with the place active)."""
    lines = "\n".join(f"- Fact: service {i} of the staging cluster listens on port {5400 + i}" for i in range(20))
    payloads: list[dict[str, Any]] = [
        {"schema": "memevo.hook/v1", "event": "compaction", "session_id": "seed", "cwd": "/tmp", "summary": lines},
        {
            "schema": "memevo.hook/v1",
            "event": "turn_end",
            "session_id": "seed",
            "cwd": "/tmp",
            "user_messages": ["remember that the deploy runs on fridays"],
        },
    ]
    for i, payload in enumerate(payloads):
        result = hook_call(json.dumps(payload).encode(), str(payload["event"]), None)
        assert result == ("", ""), (i, result)


def _snapshot(place: Place) -> dict[str, Any]:
    return {
        "memories": dict(place.query("SELECT id, body FROM memories")),
        "sources": {row[0]: row[1:] for row in place.query("SELECT id, body, state, dedupe_key FROM sources")},
    }


def check_call(raw: bytes, event: str | None, adapter: str | None, stats: dict[str, Any]) -> None:
    """One call from this process and its invariants."""
    started = time.monotonic()
    result = hook_call(raw, event, adapter)
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


def run_processes(place: Place) -> dict[str, Any]:
    """The same invariants for a few whole `memevo hook` processes."""
    worst = 0.0
    for name, argv, data in PROCESS_CASES:
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "cli", *argv],
            input=data,
            capture_output=True,
            cwd=REPO,
            env=place.env(),
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
    examples: int = 300,
    *,
    processes: bool = True,
    derandomize: bool = True,
    database_url: str | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Fuzz; raises AssertionError (with the failing example) when an invariant breaks."""
    stats: dict[str, Any] = {"calls": 0, "max_call_s": 0.0, "with_stdout": 0, "with_stderr": 0}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memevo-fuzz-", dir=workdir) as tmp:
        root = Path(tmp)
        transcripts = hostile_transcripts(root / "transcripts")
        with new_place(root / "home", database_url) as place, gateway(place, root / "serve.log"):
            with place.active():
                _seed()
                before = _snapshot(place)

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
            figures: dict[str, Any] = {"backend": place.backend, "examples": examples, **stats}
            if processes:
                figures.update(run_processes(place))
            after = _snapshot(place)
            changed = [k for k, v in before["memories"].items() if after["memories"].get(k) != v]
            changed += [k for k, v in before["sources"].items() if after["sources"].get(k) != v]
            checked = integrity(place)
            tracebacks = logged_tracebacks([*sorted((place.home / "logs").glob("*.log")), root / "serve.log"])
            figures.update(
                {
                    "rows_before": len(before["memories"]) + len(before["sources"]),
                    "rows_changed": len(changed),
                    "rows_added": len(after["memories"])
                    + len(after["sources"])
                    - len(before["memories"])
                    - len(before["sources"]),
                    "integrity": checked,
                    "tracebacks": tracebacks,
                    "max_call_s": round(stats["max_call_s"], 3),
                    "seconds": round(time.monotonic() - started, 1),
                }
            )
    assert not changed, changed
    assert checked["ok"] and not tracebacks, figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2_000)
    parser.add_argument("--random", action="store_true", help="new random examples instead of the fixed sequence")
    parser.add_argument("--no-processes", action="store_true")
    parser.add_argument("--database-url", default=None, help="run on PostgreSQL, in a fresh schema of this database")
    args = parser.parse_args()
    figures = run(
        args.examples, processes=not args.no_processes, derandomize=not args.random, database_url=args.database_url
    )
    print_figures("hook_fuzz", figures)


if __name__ == "__main__":
    main()
