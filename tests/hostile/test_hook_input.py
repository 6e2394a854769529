"""The hook's input boundary: any bytes in, one line out at most, and text made valid UTF-8
once before anything is stored, hashed or searched."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cli.hooks.entry import MAX_STDIN_BYTES, parse_payload, run_hook
from cli.hooks.event import HookEvent, Operation, valid_event
from memory_core.capture.intake import dedupe_key
from memory_core.errors import UsageError
from tests.support.processes import memevo_process

LONE = "\udc00"


def generic(event: str, **fields: object) -> bytes:
    payload = {"schema": "memevo.hook/v1", "event": event, "session_id": "s", "cwd": "/tmp", **fields}
    return json.dumps(payload).encode("utf-8")  # json escapes a lone surrogate as "\udc00"


def stored(home: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(home / "memory.db")
    try:
        return [(t, json.loads(b)["text"]) for t, b in conn.execute("SELECT source_type, body FROM sources")]
    finally:
        conn.close()


def test_a_lone_surrogate_in_a_summary_is_captured(home: Path) -> None:
    result = run_hook(generic("compaction", summary=f"Decision: use {LONE} WAL for the queue"), "compaction", None)
    assert result == ("", "")
    assert stored(home) == [("summary", "Decision: use \ufffd WAL for the queue")]


def test_a_lone_surrogate_in_a_cue_is_captured(home: Path) -> None:
    result = run_hook(
        generic("turn_end", user_messages=[f"remember that the {LONE} staging port is 5433"]), "turn_end", None
    )
    assert result == ("", "")
    assert stored(home) == [("user_statement", "remember that the \ufffd staging port is 5433")]


def test_a_lone_surrogate_in_a_prompt_still_recalls(home: Path) -> None:
    run_hook(generic("compaction", summary="Decision: use WAL mode for the queue database"), "compaction", None)
    result = run_hook(generic("user_prompt", prompt=f"queue {LONE} WAL mode?"), "user_prompt", None)
    assert result.stderr == "" and "WAL mode" in result.stdout
    assert json.loads((home / "last-recall.json").read_text(encoding="utf-8"))["plan"]["focus"]


def test_claude_code_payload_with_surrogates_everywhere(home: Path) -> None:
    raw = json.dumps(
        {
            "hook_event_name": "UserPromptSubmit",
            "session_id": f"s{LONE}",
            "prompt": f"port {LONE}?",
            "cwd": f"/tmp/{LONE}",
            "transcript_path": f"/nonexistent/{LONE}",
        }
    ).encode()
    assert run_hook(raw, None, None).stderr == ""
    stashes = list((home / "sessions").glob("*.json"))
    assert len(stashes) == 1
    assert json.loads(stashes[0].read_text(encoding="utf-8"))["prompt"] == "port \ufffd?"


def test_valid_event_reaches_every_text_field() -> None:
    event = HookEvent(
        "turn_end",
        agent=f"a{LONE}",
        session_id=LONE,
        cwd=f"/{LONE}",
        user_messages=(LONE, "ok"),
        operations=(Operation("Bash", input=LONE, output=LONE, call_id=LONE, result_id=LONE),),
        final_message=LONE,
    )
    fixed = valid_event(event)
    assert "\ufffd" in fixed.agent and fixed.user_messages == ("\ufffd", "ok")
    op = fixed.operations[0]
    assert (op.input, op.output, op.call_id, op.result_id) == ("\ufffd",) * 4
    json.dumps(fixed.__dict__, default=str).encode("utf-8")
    clean = HookEvent("user_prompt", prompt="fine")
    assert valid_event(clean) is clean


def test_the_dedupe_key_never_fails_on_text() -> None:
    assert dedupe_key("a", LONE, "summary", f"x{LONE}")
    assert dedupe_key("a", "s", "summary", "same") == dedupe_key("a", "s", "summary", "same")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"\xff\xfe{", "not JSON"),
        (b"[" * 100_000, "nested too deeply"),
        (b'{"schema": "memevo.hook/v1", "n": ' + b"9" * 5_000 + b"}", "number too long"),
        (b"[1, 2]", "one JSON object"),
        (b"x" * (MAX_STDIN_BYTES + 1), "larger than"),
    ],
)
def test_payloads_that_cannot_be_read(raw: bytes, fragment: str) -> None:
    with pytest.raises(UsageError, match=fragment):
        parse_payload(raw)
    result = run_hook(raw, "compaction", None)
    assert result.stdout == "" and fragment in result.stderr and "\n" not in result.stderr


@pytest.mark.parametrize(
    "raw",
    [
        generic("compaction", summary="\x00\x01\x02\u202e\u2066 bidi \x7f"),
        generic("compaction", summary={"nested": [1, 2, 3]}),
        generic("turn_end", user_messages="not a list"),
        generic("turn_end", user_messages=[None, 1, {"a": 1}]),
        generic("turn_end", cwd="/tmp/\x00nul"),
        generic("user_prompt", prompt=["a"]),
        generic("turn_end", operations=[{"tool": "Bash", "input": {"deep": [[[[["x"]]]]]}, "status": 5}]),
        json.dumps({"hook_event_name": ["x"]}).encode(),
        json.dumps({"hook_event_name": "Stop", "stop_hook_active": "yes"}).encode(),
        json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": 12}).encode(),
        '{"schema": "memevo.hook/v1", "summary": "\ud800"}'.encode("utf-8", "surrogatepass"),
    ],
)
def test_hostile_payloads_fail_open(raw: bytes, home: Path) -> None:
    for event in ("compaction", "turn_end", "user_prompt", None):
        result = run_hook(raw, event, None)
        assert "Traceback" not in result.stderr and "\n" not in result.stderr
        assert "internal error" not in result.stderr, result.stderr
        assert result.stdout == "" or result.stdout.startswith(("<memevo-recall>", '{"hookSpecificOutput"'))


def test_a_real_process_with_a_surrogate_captures(home: Path) -> None:
    payload = generic("compaction", summary=f"Fact: {LONE} uses WAL").decode()
    result = memevo_process("hook", "compaction", input=payload)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert stored(home) == [("summary", "Fact: \ufffd uses WAL")]
