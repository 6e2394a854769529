"""The generic protocol's turn fields (operations, final_message, ended_in_error) and the event's bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli.hooks.adapters import parse_event
from cli.hooks.event import (
    MAX_FINAL_MESSAGE,
    MAX_OPERATION_INPUT,
    MAX_OPERATION_OUTPUT,
    MAX_OPERATIONS,
    MAX_TEXT,
    MAX_USER_MESSAGES,
    HookEvent,
    HookInputError,
    Operation,
    clip_middle,
)
from memory_core.errors import UsageError
from tests.hooks.claude_data import hook_process


def turn_end(**fields: Any) -> dict[str, Any]:
    return {
        "schema": "memevo.hook/v1",
        "event": "turn_end",
        "session_id": "s",
        "cwd": "/tmp",
        "user_messages": ["fix it"],
        **fields,
    }


def parse(payload: dict[str, Any], home: Path) -> HookEvent:
    parsed = parse_event(None, payload, payload.get("event"), home=home, now=0.0)
    assert parsed.adapter == "generic" and len(parsed.events) == 1
    return parsed.events[0]


def test_turn_fields_are_accepted_and_bounded(home: Path) -> None:
    operations = [
        {
            "tool": "Bash",
            "input": {"command": "ls", "n": [1]},
            "output": "o" * 10_000,
            "status": "error",
            "call_id": f"c{i}",
            "result_id": f"c{i}",
        }
        for i in range(MAX_OPERATIONS + 3)
    ]
    event = parse(turn_end(operations=operations, final_message="m" * 20_000, ended_in_error=True), home)
    assert len(event.operations) == MAX_OPERATIONS and event.operations[0].call_id == "c3"  # the last ones
    first = event.operations[0]
    assert first.input == '{"command":"ls","n":[1]}' and first.status == "error"
    assert len(first.output) <= MAX_OPERATION_OUTPUT and first.output.startswith("o") and first.output.endswith("o")
    assert event.final_message is not None and len(event.final_message) <= MAX_FINAL_MESSAGE
    assert event.ended_in_error is True
    plain = parse(turn_end(operations=[{"tool": "Read"}]), home)
    assert plain.operations == (Operation("Read"),) and plain.final_message is None and plain.ended_in_error is False


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"operations": {"tool": "x"}}, "operations must be a list"),
        ({"operations": ["x"]}, "operations[0] must be an object"),
        ({"operations": [{"tool": "x", "extra": 1}]}, "unknown key 'extra'"),
        ({"operations": [{"input": "ls"}]}, "operations[0].tool"),
        ({"operations": [{"tool": "x", "status": "done"}]}, "status must be one of"),
        ({"operations": [{"tool": "x", "call_id": 5}]}, "operations[0].call_id"),
        ({"final_message": 5}, "final_message must be a string"),
        ({"ended_in_error": "yes"}, "ended_in_error must be true or false"),
        ({"transcript_path": "/x"}, "unknown field 'transcript_path'"),
    ],
)
def test_bad_turn_fields_are_usage_errors(fields: dict[str, Any], expected: str, home: Path) -> None:
    with pytest.raises(UsageError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        parse(turn_end(**fields), home)


def test_a_generic_turn_with_operations_still_captures(home: Path) -> None:
    import json

    payload = turn_end(
        user_messages=["remember that CI runs on 2 cores"],
        operations=[{"tool": "Bash", "input": "make test", "output": "ok"}],
        final_message="Done.",
    )
    result = hook_process(json.dumps(payload), "turn_end")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    import sqlite3

    conn = sqlite3.connect(home / "memory.db")
    assert conn.execute("SELECT source_type FROM sources").fetchall() == [("user_statement",)]
    conn.close()


def test_clip_middle_keeps_head_and_tail_within_the_bound() -> None:
    assert clip_middle("short", 10) == "short"
    text = "HEAD" + "x" * 10_000 + "TAIL"
    for limit in (0, 5, 40, 41, 100, 4_000):
        clipped = clip_middle(text, limit)
        assert len(clipped) <= limit
    assert clip_middle(text, 4_000).startswith("HEAD") and clip_middle(text, 4_000).endswith("TAIL")
    assert "characters omitted" in clip_middle(text, 4_000)


def test_the_event_refuses_what_no_adapter_should_let_through() -> None:
    with pytest.raises(HookInputError, match="operation input"):
        Operation("Bash", input="x" * (MAX_OPERATION_INPUT + 1))
    with pytest.raises(HookInputError, match="operation status"):
        Operation("Bash", status="ok?")
    with pytest.raises(HookInputError, match="at most"):
        HookEvent("turn_end", operations=(Operation("x"),) * (MAX_OPERATIONS + 1))
    with pytest.raises(HookInputError, match="operations must be"):
        HookEvent("turn_end", operations=({"tool": "x"},))  # type: ignore[arg-type]
    with pytest.raises(HookInputError, match="transcript_path"):
        HookEvent("turn_end", transcript_path="/a\x00b")
    bounded = Operation.bounded("t" * 500, "i" * 5_000, "o" * 5_000, "ok", "c" * 300, None)
    assert len(bounded.tool) == 128 and len(bounded.input) == MAX_OPERATION_INPUT
    assert len(bounded.call_id or "") == 256 and bounded.result_id is None


def prompt_with_history(history: list[str]) -> bytes:
    import json

    payload = {
        "schema": "memevo.hook/v1",
        "event": "user_prompt",
        "session_id": "long",
        "cwd": "/work/app",
        "user_messages": history,
        "prompt": "which port does the staging database listen on?",
    }
    return json.dumps(payload).encode("utf-8")


@pytest.mark.parametrize(
    "history",
    [
        [f"thanks, step {i} looks fine" for i in range(MAX_USER_MESSAGES + 1)],
        ["here is the whole log: " + "line of output\n" * (MAX_TEXT // 10), "thanks"],
    ],
    ids=["more-messages-than-kept", "a-message-longer-than-kept"],
)
def test_a_long_conversation_still_answers_the_current_message(history: list[str], seeded: str) -> None:
    from cli.hooks.entry import run_hook

    run = run_hook(prompt_with_history(history), "user_prompt", None)
    assert run.stderr == ""
    assert "listens on port 5433" in run.stdout


def test_a_long_history_is_bounded_like_the_native_adapters(home: Path) -> None:
    history = [f"message {i}" for i in range(MAX_USER_MESSAGES + 5)]
    history[-1] = "x" * (MAX_TEXT + 10)
    event = parse({**turn_end(user_messages=history), "event": "user_prompt", "prompt": "p" * (MAX_TEXT + 1)}, home)
    assert len(event.user_messages) == MAX_USER_MESSAGES and event.user_messages[0] == "message 5"  # the last ones
    assert len(event.user_messages[-1]) == MAX_TEXT and event.user_messages[-1].startswith("x")
    assert event.prompt is not None and len(event.prompt) == MAX_TEXT
    # A message that is not a string is dropped and named in the hook log; the rest is read.
    event = parse(turn_end(user_messages=[*history[:66], 5]), home)
    assert event.user_messages == tuple(history[2:66])
    log = (home / "logs" / "hooks.log").read_text()
    assert "turn_end: user_messages[66] (a number) dropped: not a string" in log
