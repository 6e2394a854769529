"""The Gemini CLI adapter over the real 0.61 payloads: detection, each event, what is printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.hooks.adapters import detect_adapter, parse_event
from cli.hooks.adapters.gemini import is_gemini_payload, parse, render
from cli.hooks.event import HookEvent
from memory_core.errors import UsageError
from tests.hooks.claude_data import DATA as CLAUDE_DATA
from tests.hooks.gemini_data import (
    DATA,
    SESSION,
    TURN_FILE_REFERENCE,
    TURN_PREFERENCE,
    TURN_SLASH,
    TURN_STATEMENT,
    TURN_TOOLS,
    payload,
    session_hooks,
    session_payload,
)

PAYLOADS = sorted(p.stem for p in (DATA / "payloads").glob("*.json") if p.stem != "model-request-with-injection")
IGNORED = [
    n
    for n in PAYLOADS
    if n.split(".")[0] in ("PreCompress", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel", "BeforeToolSelection")
]


def events(data: dict[str, Any], home: Path, event_arg: str | None = None) -> tuple[HookEvent, ...]:
    return parse(data, event_arg, home=home, now=1_700_000_000.0)


def test_every_recorded_gemini_payload_is_detected_as_gemini() -> None:
    assert len(PAYLOADS) >= 20
    for name in PAYLOADS:
        assert detect_adapter(payload(name)) == "gemini", name
    for data, _ in session_hooks():
        assert detect_adapter(data) == "gemini", data["hook_event_name"]


def test_no_claude_code_payload_is_detected_as_gemini() -> None:
    claude = [json.loads(p.read_text(encoding="utf-8"))["payload"] for p in (CLAUDE_DATA / "payloads").glob("*.json")]
    assert len(claude) >= 30
    for data in claude:
        assert detect_adapter(data) == "claude-code", data["hook_event_name"]
    # Event names the two share: only Gemini's timestamp tells them apart.
    start = payload("SessionStart.startup")
    assert is_gemini_payload(start) and not is_gemini_payload({**start, "timestamp": None})
    assert detect_adapter({k: v for k, v in start.items() if k != "timestamp"}) == "claude-code"
    assert not is_gemini_payload({"hook_event_name": ["BeforeAgent"]})
    assert detect_adapter({"schema": "memevo.hook/v1", "hook_event_name": "BeforeAgent"}) == "generic"


def test_the_agent_option_forces_gemini(home: Path) -> None:
    parsed = parse_event("gemini", payload("SessionStart.startup"), None, home=home, now=0.0)
    assert parsed.adapter == "gemini"
    assert [e.event for e in parsed.events] == ["session_start"]


@pytest.mark.parametrize("name", IGNORED)
def test_ignored_events_become_nothing(name: str, home: Path) -> None:
    assert events(payload(name), home) == ()
    assert not home.exists()


def test_session_start_and_end(home: Path) -> None:
    for name, kind in (
        ("SessionStart.startup", "session_start"),
        ("SessionStart.resume", "session_start"),
        ("SessionEnd", "session_end"),
        ("SessionEnd.2", "session_end"),
    ):
        [event] = events(payload(name), home)
        assert (event.event, event.agent, event.session_id) == (kind, "gemini", "eb6b32c4-9c9d-4ae0-b09f-2ce6297467b8")
        assert event.cwd == "/home/user/project"
    assert not home.exists()


def test_before_agent_is_recall_with_earlier_turns(home: Path, tmp_path: Path) -> None:
    [event] = events(session_payload("BeforeAgent", TURN_PREFERENCE + 1, tmp_path), home)
    assert event.event == "user_prompt" and event.agent == "gemini" and event.session_id == SESSION
    assert event.prompt == "I prefer tabs over spaces."
    assert event.user_messages == (
        "Please run the checks and write out.txt",
        "What does @notes.txt say about the port?",
        "from now on use pnpm, then run echo partial",
    )


def test_before_agent_strips_context_other_hooks_and_file_references_added(home: Path, tmp_path: Path) -> None:
    [first] = events(session_payload("BeforeAgent", 0, tmp_path), home)
    assert first.prompt == "Remember that the staging database listens on port 5433."
    assert first.user_messages == ()  # a fresh session
    [with_file] = events(session_payload("BeforeAgent", 2, tmp_path), home)
    assert with_file.prompt == "What does @notes.txt say about the port?"
    assert events(payload("BeforeAgent", prompt="<hook_context>only context</hook_context>  "), home) == ()


def test_first_prompt_without_a_transcript_file(home: Path, tmp_path: Path) -> None:
    [event] = events(payload("BeforeAgent", tmp_path / "not-yet.jsonl"), home)
    assert (event.prompt, event.user_messages) == ("hello first turn", ())


@pytest.mark.parametrize(
    ("turn", "messages", "operations", "final"),
    [
        (
            TURN_STATEMENT,
            ("Remember that the staging database listens on port 5433.",),
            0,
            "Noted: the staging database listens on port 5433.",
        ),
        (TURN_TOOLS, ("Please run the checks and write out.txt",), 3, "Tests ran; one command failed."),
        (TURN_FILE_REFERENCE, ("What does @notes.txt say about the port?",), 0, "It is in notes.txt."),
        (TURN_SLASH, (), 0, "Done."),
        (TURN_PREFERENCE, ("I prefer tabs over spaces.",), 0, "Sure."),
    ],
)
def test_after_agent_reads_the_turn_from_the_transcript(
    home: Path, tmp_path: Path, turn: int, messages: tuple[str, ...], operations: int, final: str
) -> None:
    [event] = events(session_payload("AfterAgent", turn, tmp_path), home)
    assert (event.event, event.agent, event.session_id) == ("turn_end", "gemini", SESSION)
    assert event.user_messages == messages
    assert len(event.operations) == operations
    assert event.final_message == final and not event.ended_in_error
    assert not home.exists()  # parsing never touches the state dir


def test_after_agent_tool_turn_operations(home: Path, tmp_path: Path) -> None:
    [event] = events(session_payload("AfterAgent", TURN_TOOLS, tmp_path), home)
    assert [(o.tool, o.status) for o in event.operations] == [
        ("run_shell_command", "ok"),
        ("run_shell_command", "error"),
        ("write_file", "ok"),
    ]
    assert all(o.call_id and o.result_id == o.call_id for o in event.operations)


def test_after_agent_falls_back_to_the_payload_without_a_transcript(home: Path, tmp_path: Path) -> None:
    for data in (payload("AfterAgent", tmp_path / "missing.jsonl"), payload("AfterAgent", transcript_path=None)):
        [event] = events(data, home)
        assert event.user_messages == ("hello first turn",)
        assert (event.operations, event.final_message) == ((), "fake reply 1")
    [event] = events(payload("AfterAgent", tmp_path / "missing.jsonl", prompt_response="[no response text]"), home)
    assert event.final_message is None
    [event] = events(payload("AfterAgent", tmp_path / "missing.jsonl", prompt="/memory show"), home)
    assert event.user_messages == ()


def test_after_agent_payload_with_context_prefix_falls_back_to_the_typed_text(home: Path, tmp_path: Path) -> None:
    data = session_payload("AfterAgent", TURN_STATEMENT, tmp_path)
    Path(data["transcript_path"]).unlink()
    [event] = events(data, home)
    assert event.user_messages == ("Remember that the staging database listens on port 5433.",)


def test_stop_hook_active_and_an_empty_prompt_are_skipped(home: Path) -> None:
    assert events(payload("AfterAgent", stop_hook_active=True), home) == ()
    assert events(payload("AfterAgent", prompt="<hook_context>only context</hook_context>"), home) == ()


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        ("BeforeAgent", {"prompt": None}, '"prompt"'),
        ("BeforeAgent", {"prompt": 3}, '"prompt"'),
        ("AfterAgent", {"stop_hook_active": "no"}, '"stop_hook_active"'),
        ("AfterAgent", {"prompt": None}, '"prompt"'),
        ("AfterAgent", {"prompt_response": ["x"]}, '"prompt_response"'),
        ("SessionStart.startup", {"session_id": 12}, '"session_id"'),
        ("SessionEnd", {"cwd": {}}, '"cwd"'),
        ("AfterAgent", {"hook_event_name": None}, '"hook_event_name"'),
    ],
)
def test_missing_or_wrong_fields_are_usage_errors(
    name: str, changes: dict[str, Any], expected: str, home: Path
) -> None:
    with pytest.raises(UsageError, match=expected):
        events(payload(name, **changes), home)


def test_unknown_fields_are_ignored_and_ignored_events_are_not_checked(home: Path) -> None:
    [event] = events(payload("SessionStart.startup", future_field={"x": 1}), home)
    assert event.event == "session_start"
    assert events(payload("PreCompress", session_id=12, trigger=None), home) == ()


def test_event_argument_must_name_the_payloads_event(home: Path) -> None:
    assert [e.event for e in events(payload("SessionStart.startup"), home, "SessionStart")] == ["session_start"]
    with pytest.raises(UsageError, match="but the command was"):
        events(payload("AfterAgent"), home, "turn_end")


def test_only_the_prompt_digest_is_printed_in_the_beforeagent_envelope() -> None:
    prompt = HookEvent("user_prompt", agent="gemini", prompt="x")
    digest = "<memevo-recall>\nfact\n</memevo-recall>"
    assert render(prompt, digest) == json.dumps(
        {"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": digest}}
    )
    assert render(prompt, "") == ""
    for kind in ("turn_end", "session_start", "session_end", "compaction"):
        assert render(HookEvent(kind, agent="gemini", summary="s" if kind == "compaction" else None), "text") == ""
