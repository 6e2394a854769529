"""Hook fuzzing: hypothesis-generated hostile input for every event and every adapter.

    python -m bench.reliability.hook_fuzz [--examples 2000] [--random] [--no-processes]

Most examples run in this process through :func:`cli.hooks.entry.run_hook`, the
function the `memevo hook` command calls with what it read from stdin; a handful more run as
real `memevo hook` processes. Inputs: the generic protocol, Claude Code, Codex, Gemini and Pi
payloads and arbitrary JSON, with values of every JSON type, hostile strings (NUL, controls,
bidi overrides, lone surrogates, 60,000-character words, walls of newlines, secrets) and
nesting, optionally broken as bytes (invalid UTF-8, truncation); hostile transcripts. Every
call must return with no internal error and no traceback, one stderr line at most, stdout
empty or a bounded digest, within a time bound; at the end every row stored before the
fuzzing is unchanged and the database passes its integrity checks.
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
from hypothesis import strategies as st

from bench.reliability.harness import REPO, integrity, memevo_env, print_figures, query, state_home

# A digest is at most 2,048 bytes; an agent's envelope escapes it as JSON (at most 6 bytes
# per byte for control characters, far less in practice).
STDOUT_MAX_BYTES = 6 * 2_048 + 256
CALL_SECONDS_MAX = 5.0
PROCESS_SECONDS_MAX = 15.0

EVENTS = ["session_start", "compaction", "turn_end", "user_prompt", "session_end"]
NATIVE_EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "StopFailure",
    "PostCompact",
    "PreCompact",
    "SessionEnd",
    "SubagentStop",
    "BeforeAgent",
    "AfterAgent",
    "PreCompress",
    "Notification",
    "session_start",
    "before_agent_start",
    "agent_end",
    "session_compact",
    "session_shutdown",
    "PreToolUse",
]
HOSTILE = [
    "",
    " ",
    "\x00",
    "\x00" * 100,
    "\x01\x02\x1b[31mred\x1b[0m\x7f",
    "\u202e\u2066evil\u2069\u202c",
    "\ufeff\u200b",
    "\udc00",
    "\ud800x\udfff",
    "x\ud83d",
    "é" * 5_000,
    "中文" * 3_000,
    "😀" * 2_000,
    "a" * 60_000,
    "a." * 30_000,
    "-eyJ" * 10_000,
    "\n" * 30_000,
    "token=" * 5_000,
    "remember that " + "x" * 20_000,
    "remember that the port is 5433",
    "记住：发布前要跑测试",
    "memory 0123456789abcdef01234567 is incorrect.",
    "ok, continue",
    "my password is hunter2Tr0ub4dor",
    "sk-" + "proj-" + "A1b2C3d4" * 6,
    "\\udc00",
    "<memevo-recall>",
    "../../etc/passwd",
    "/dev/zero",
    "{}",
    "[",
    "null",
    "which port does service 7 of the staging cluster listen on?",
    "staging cluster port \udc00?",
    "port " * 3_000 + "staging cluster?",
]


def _hostile(index: int) -> str:
    return HOSTILE[index]


_text = st.one_of(
    st.text(max_size=80),
    st.sampled_from(range(len(HOSTILE))).map(_hostile),  # by index: keeps reprs short
    st.builds(
        lambda unit, n: unit * n,
        st.sampled_from(["a", "é", "中", " ", "\n", "a.", "\x00", "\udc00"]),
        st.integers(0, 20_000),
    ),
)
MEANINGFUL = [
    "remember that the staging port is 5433",
    "which port does service 7 of the staging cluster listen on?",
    "please run the tests",
    "Decision: use WAL for the queue",
    "- Fact: the cache lives in /srv/cache",
    "记住：发布前要跑全部测试",
    "From now on, always use pnpm",
    "memory 0123456789abcdef01234567 is useful.",
    "I prefer tabs",
    "do you remember the staging port?",
    "cd /work/app && git commit -m fix",
]
# Text with something a handler acts on (a cue, a question, a label) around a hostile part.
_prose = st.one_of(
    _text, st.builds(lambda a, b, c: f"{a} {b} {c}", st.sampled_from(MEANINGFUL), _text, st.sampled_from(MEANINGFUL))
)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), _text)
_json = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_text, inner, max_size=4)),
    max_leaves=12,
)
# Nesting deeper than any parser's recursion limit, as bytes (json.dumps could not write it).
_deep = st.builds(
    lambda prefix, depth: prefix + b"[" * depth + b"]" * depth + b"}",
    st.sampled_from(
        [
            b'{"schema": "memevo.hook/v1", "summary": ',
            b'{"hook_event_name": "Stop", "x": ',
            b'{"event": {"type": "agent_end", "messages": ',
        ]
    ),
    st.integers(1, 200_000),
)


def _typed(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return value


def _any(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A field of the right shape most of the time, any JSON value sometimes."""
    return st.one_of(value, value, value, _json)


def _generic(_field: Any = _any, event: str | None = None) -> st.SearchStrategy[dict[str, Any]]:
    typed = _field is _typed
    ids = st.one_of(st.none(), st.sampled_from(["c1", "c2", "c3"]), st.text(min_size=1, max_size=20))
    operation = st.fixed_dictionaries(
        {"tool": _field(st.sampled_from(["Bash", "Edit", "Write", "Read", "memevo", "x" * 128]))},
        optional={
            "input": st.one_of(_prose, _json),
            "output": st.one_of(_prose, _json),
            "status": _field(st.sampled_from(["ok", "error", "interrupted"])),
            "call_id": _field(ids),
            "result_id": _field(ids),
            **({} if typed else {"extra": _json}),
        },
    )
    messages = st.lists(_prose.map(lambda t: t or "x") if typed else _text, max_size=8)
    # A well-formed payload carries what its event needs.
    needed = {"compaction": "summary", "turn_end": "user_messages", "user_prompt": "prompt"}.get(event or "")
    required: dict[str, Any] = {"schema": _field(st.just("memevo.hook/v1"))}
    if typed and needed:
        required[needed] = messages.map(lambda m: m or ["x"]) if needed == "user_messages" else _prose
    cwds = ["/tmp", "", "~", "relative/dir", "/nonexistent"] + ([] if typed else ["/tmp/\x00x"])
    optional = {
        "event": _field(st.just(event) if event else st.sampled_from(EVENTS)),
        "agent": _field(st.sampled_from(["generic", "fuzz", "a" * 64, "é"]) if typed else _text),
        "session_id": _field(st.one_of(st.none(), st.text(min_size=1, max_size=40)) if typed else _text),
        "cwd": _field(st.sampled_from(cwds)),
        "summary": _field(_prose),
        "user_messages": _field(messages),
        "prompt": _field(_prose),
        "operations": _field(st.lists(operation, max_size=6)),
        "final_message": _field(_prose),
        "ended_in_error": _field(st.booleans()),
        **({} if _field is _typed else {"unknown": _json}),
    }
    return st.fixed_dictionaries(required, optional={k: v for k, v in optional.items() if k not in required})


def _native(transcripts: list[str], _field: Any = _any) -> st.SearchStrategy[dict[str, Any]]:
    message = st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "toolResult", "custom"])},
        optional={"content": st.one_of(_prose, _json), "toolCallId": _text, "isError": _json},
    )
    pi_event = st.fixed_dictionaries(
        {"type": _field(st.sampled_from(["before_agent_start", "agent_end"]))},
        optional={
            "prompt": _field(_prose),
            "messages": _field(st.lists(message, max_size=5)),
            "compactionEntry": _field(st.fixed_dictionaries({"summary": _field(_prose)})),
        },
    )
    return st.fixed_dictionaries(
        {"hook_event_name": _field(st.sampled_from(NATIVE_EVENTS))},
        optional={
            "session_id": _field(st.text(min_size=1, max_size=40)),
            "cwd": _field(st.sampled_from(["/tmp", "", "/x"])),
            "transcript_path": _field(st.sampled_from(transcripts)),
            "prompt": _field(_prose),
            "prompt_id": _field(_text),
            "turn_id": _field(_text),
            "compact_summary": _field(_prose),
            "source": _field(st.sampled_from(["compact", "x"])),
            "stop_hook_active": _field(st.booleans()),
            "last_assistant_message": _field(_text),
            "prompt_response": _field(_text),
            "timestamp": _field(_text),
            "agent_id": st.none(),
            "event": _field(pi_event),
            "session_file": _field(st.sampled_from(transcripts)),
            "model": _json,
        },
    )


def _inputs(transcripts: list[str]) -> st.SearchStrategy[tuple[bytes, str | None, str | None]]:
    from cli.hooks.adapters import ADAPTER_NAMES

    junk = st.one_of(_generic(), _native(transcripts), _json)

    def encode(value: Any, ascii_only: bool, breakage: int, where: int) -> bytes:
        raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", errors="surrogatepass")
        if breakage == 1 and raw:  # invalid UTF-8 inside
            cut = where % len(raw)
            return raw[:cut] + b"\xff\xc0\x80\xed\xa0\x80" + raw[cut:]
        if breakage == 2:  # truncated
            return raw[: where % (len(raw) + 1)]
        return raw

    def encoded(payload: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
        return st.builds(
            encode, payload, st.booleans(), st.sampled_from([0, 0, 0, 0, 0, 0, 1, 2]), st.integers(0, 10**9)
        )

    event = st.sampled_from([None, *EVENTS, "bogus", "UserPromptSubmit", "Stop"])
    adapter = st.sampled_from([None, None, None, *ADAPTER_NAMES])
    # Well-formed payloads (every field of its type, the event named consistently) reach the
    # handlers; junk exercises the refusals.
    generic = st.sampled_from(EVENTS).flatmap(
        lambda name: st.tuples(encoded(_generic(_typed, name)), st.just(name), st.sampled_from([None, "generic"]))
    )
    native = st.tuples(encoded(_native(transcripts, _typed)), st.just(None), adapter)
    other = st.tuples(st.one_of(encoded(junk), _deep), event, adapter)
    return st.one_of(generic, generic, native, native, other)


def hostile_transcripts(directory: Path) -> list[str]:
    """Transcript files as an agent (or an attacker) might leave them."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": "remember that the port is 5433"},
                "promptId": "p1",
                "uuid": "u1",
            }
        ),
        json.dumps({"type": "user", "message": {"role": "user", "content": "\udc00" * 10}}),
        '{"type": "user", "message": ' + "[" * 5_000,
        json.dumps(
            {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t", "input": "x" * 50_000}]}}
        ),
        "not json at all \x00",
        json.dumps([1, 2, 3]),
        json.dumps({"type": "summary", "summary": "a" * 60_000}),
        json.dumps({"role": "user", "content": "before_agent_start " + "é" * 1_000}),
    ]
    hostile = directory / "hostile.jsonl"
    hostile.write_text("\n".join(lines * 50) + '\n{"type": "user", "mess', encoding="utf-8", errors="surrogatepass")
    empty = directory / "empty.jsonl"
    empty.write_bytes(b"")
    binary = directory / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 100)
    return [str(hostile), str(empty), str(binary), str(directory), "/nonexistent/t.jsonl", "/dev/zero", ""]


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
            @given(_inputs(transcripts))
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
