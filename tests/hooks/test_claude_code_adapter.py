"""Each real Claude Code payload becomes the normalized events memevo acts on (or none)."""

from __future__ import annotations

import json
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from cli.hooks import session_stash
from cli.hooks.adapters import detect_adapter, parse_event
from cli.hooks.adapters.claude_code import EARLIER_TURNS, LAG_WAIT_SECONDS, PROMPT_WINDOW_BYTES, render
from cli.hooks.event import HookEvent
from memory_core import clock
from memory_core.errors import UsageError
from tests.hooks.claude_data import (
    DATA,
    SESSION,
    TURN_AFTER_COMPACT,
    TURN_BASH,
    assistant_record,
    payload,
    records_until,
    user_record,
    write_records,
)
from tests.hooks.support import replace_records

NOW = clock.now()

IGNORED = [
    "turn1-plain.InstructionsLoaded.1",
    "turn1-plain.MessageDisplay.1",
    "turn2-bash.PreToolUse.1",
    "turn2-bash.PostToolUse.1",
    "turn2-bash.PostToolUseFailure.1",
    "turn2-bash.PostToolBatch.1",
    "turn4-task.TaskCreated.1",
    "turn4-task.TaskCompleted.1",
    "turn5-cd.CwdChanged.1",
    "turn7-expansion.UserPromptExpansion.1",
    "turn9-compact.PreCompact.1",
]
SUBAGENT = ["turn3-subagent.SubagentStart.1", "turn3-subagent.SubagentStop.1", "turn9-compact.SubagentStop.1"]


def events(data: dict[str, Any], home: Path, event_arg: str | None = None) -> tuple[HookEvent, ...]:
    parsed = parse_event(None, data, event_arg, home=home, now=NOW)
    assert parsed.adapter == "claude-code"
    return parsed.events


def test_every_recorded_payload_is_detected_as_claude_code() -> None:
    for path in sorted((DATA / "payloads").glob("*.json")):
        assert detect_adapter(json.loads(path.read_text())["payload"]) == "claude-code", path.name
    assert detect_adapter({"schema": "memevo.hook/v1", "hook_event_name": "Stop"}) == "generic"
    assert detect_adapter({"event": "turn_end"}) == "generic"


@pytest.mark.parametrize("name", IGNORED + SUBAGENT)
def test_ignored_and_subagent_events_become_nothing(name: str, home: Path) -> None:
    assert events(payload(name), home) == ()
    assert not home.exists()  # not even the state dir is touched


def test_any_payload_of_a_subagent_is_skipped(home: Path) -> None:
    for name in ("turn3-subagent.Stop.1", "turn2-bash.UserPromptSubmit.1", "turn1-plain.SessionStart.1"):
        assert events(payload(name, agent_id="ac1bd997c8fc6dd0f"), home) == ()
    assert not home.exists()


def test_session_start_nudges_recovery_only(home: Path) -> None:
    for source in ("startup", "resume", "clear"):
        (event,) = events(payload("turn1-plain.SessionStart.1", source=source), home)
        assert event.event == "session_start" and event.agent == "claude-code"
        assert event.session_id == SESSION and event.cwd == "/home/user/project"


def test_session_start_after_compaction_also_carries_the_summary(home: Path) -> None:
    start, compaction = events(payload("turn9-compact.SessionStart.2"), home)
    assert start.event == "session_start"
    assert compaction.event == "compaction"
    post = events(payload("turn9-compact.PostCompact.1"), home)
    assert [e.event for e in post] == ["compaction"]
    assert compaction.summary == post[0].summary  # byte-identical: captured once
    assert compaction.summary.startswith("1. Primary Request and Intent: FAKE-COMPACT-SUMMARY")


def test_session_start_after_compaction_without_a_summary_yet(home: Path, tmp_path: Path) -> None:
    early = write_records(tmp_path / "t.jsonl", records_until(TURN_BASH))
    assert [e.event for e in events(payload("turn9-compact.SessionStart.2", early), home)] == ["session_start"]
    missing = payload("turn9-compact.SessionStart.2", tmp_path / "missing.jsonl")
    assert [e.event for e in events(missing, home)] == ["session_start"]


def test_user_prompt_takes_up_to_five_earlier_turns_and_stashes_the_prompt(home: Path) -> None:
    (event,) = events(payload("turn10-after-compact.UserPromptSubmit.1"), home)
    assert event.event == "user_prompt"
    assert event.prompt == "And after compaction, one more turn."
    assert len(event.user_messages) == EARLIER_TURNS
    assert event.user_messages[-1] == "Fail please. [[status: 400]]"
    assert event.user_messages[0].startswith("Delegate.")
    stash = session_stash.read_prompt(home, SESSION)
    assert stash is not None and stash.prompt == event.prompt and stash.prompt_id == TURN_AFTER_COMPACT
    path = session_stash.stash_path(home, SESSION)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert SESSION not in path.name


def test_first_prompt_of_a_session_has_no_earlier_turns(home: Path, tmp_path: Path) -> None:
    (event,) = events(payload("turn1-plain.UserPromptSubmit.1", tmp_path / "not-yet.jsonl"), home)
    assert event.user_messages == () and event.prompt.startswith("Hello, this is the first turn")
    (event,) = events(payload("turn1-plain.UserPromptSubmit.1", transcript=None, transcript_path=None), home)
    assert event.user_messages == ()


def test_stop_reads_the_current_turn(home: Path) -> None:
    (event,) = events(payload("turn2-bash.Stop.1"), home)
    assert event.event == "turn_end"
    assert event.user_messages == (
        "Check the repo state. [[tool: Bash: git status]] [[tool: Bash: ls /nonexistent-memevo-dir]]",
    )
    assert [(o.tool, o.status) for o in event.operations] == [("Bash", "ok"), ("Bash", "error")]
    assert event.final_message == "OK from fake (4)" and event.ended_in_error is False
    assert event.transcript_path is not None


def test_stop_failure_is_a_turn_that_ended_in_error(home: Path) -> None:
    (event,) = events(payload("turn8-api-error.StopFailure.1"), home)
    assert event.event == "turn_end" and event.ended_in_error is True
    assert event.user_messages == ("Fail please. [[status: 400]]",)
    assert event.final_message == "API Error: 400 scripted failure"


def test_stop_hook_active_is_skipped(home: Path) -> None:
    assert events(payload("turn2-bash.Stop.1", stop_hook_active=True), home) == ()


def test_stop_falls_back_to_the_stash_when_the_transcript_lags(home: Path, tmp_path: Path) -> None:
    lagging = write_records(tmp_path / "t.jsonl", records_until(TURN_BASH))
    events(payload("turn10-after-compact.UserPromptSubmit.1", lagging), home)
    started = time.monotonic()
    (event,) = events(payload("turn10-after-compact.Stop.1", lagging), home)
    waited = time.monotonic() - started
    assert event.user_messages == ("And after compaction, one more turn.",)
    assert event.final_message == "OK from fake (18)"  # from the payload
    assert event.operations == ()
    assert LAG_WAIT_SECONDS * 0.9 <= waited < LAG_WAIT_SECONDS + 1.0


def test_stop_falls_back_when_the_transcript_file_does_not_exist_yet(home: Path, tmp_path: Path) -> None:
    missing = tmp_path / "not-yet.jsonl"
    events(payload("turn1-plain.UserPromptSubmit.1", missing), home)
    (event,) = events(payload("turn1-plain.Stop.1", missing), home)
    assert event.user_messages == ("Hello, this is the first turn. What is in this repo?",)


def test_stop_ignores_an_earlier_turns_stash(home: Path, tmp_path: Path) -> None:
    lagging = write_records(tmp_path / "t.jsonl", records_until(TURN_BASH))
    events(payload("turn1-plain.UserPromptSubmit.1", lagging), home)  # another prompt id
    (event,) = events(payload("turn10-after-compact.Stop.1", lagging), home)
    assert event.user_messages == ()


def test_stop_uses_the_transcript_when_the_turn_appears_during_the_wait(home: Path, tmp_path: Path) -> None:
    before = records_until(TURN_BASH)
    path = write_records(tmp_path / "t.jsonl", before)
    events(payload("turn10-after-compact.UserPromptSubmit.1", path), home)
    turn = [user_record("And after compaction, one more turn.", TURN_AFTER_COMPACT), assistant_record("late reply")]
    writer = threading.Timer(0.1, lambda: replace_records(path, before + turn))
    writer.start()
    try:
        (event,) = events(payload("turn10-after-compact.Stop.1", path, last_assistant_message=None), home)
    finally:
        writer.join()
    assert event.user_messages == ("And after compaction, one more turn.",)
    assert event.final_message == "late reply"  # read from the transcript this time


def test_stop_without_prompt_ids_matches_the_stashed_prompt(home: Path, tmp_path: Path) -> None:
    items = [{k: v for k, v in r.items() if k != "promptId"} for r in records_until(TURN_BASH)]
    path = write_records(tmp_path / "t.jsonl", items)
    events(payload("turn2-bash.UserPromptSubmit.1", path, prompt_id=None), home)
    started = time.monotonic()
    (event,) = events(payload("turn2-bash.Stop.1", path, prompt_id=None), home)
    assert time.monotonic() - started < LAG_WAIT_SECONDS  # found at once
    assert len(event.operations) == 2


def test_post_compact_and_session_end(home: Path) -> None:
    (event,) = events(payload("turn9-compact.PostCompact.1"), home)
    assert event.event == "compaction" and "<analysis>" not in event.summary
    events(payload("turn2-bash.UserPromptSubmit.1"), home)
    assert session_stash.read_prompt(home, SESSION) is not None
    (end,) = events(payload("turn1-plain.SessionEnd.1"), home)
    assert end.event == "session_end"
    assert session_stash.read_prompt(home, SESSION) is None


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        ("turn2-bash.UserPromptSubmit.1", {"prompt": None}, '"prompt"'),
        ("turn2-bash.UserPromptSubmit.1", {"prompt": ["a"]}, '"prompt"'),
        ("turn2-bash.UserPromptSubmit.1", {"session_id": 7}, '"session_id"'),
        ("turn2-bash.Stop.1", {"stop_hook_active": "no"}, '"stop_hook_active"'),
        ("turn2-bash.Stop.1", {"last_assistant_message": {"x": 1}}, '"last_assistant_message"'),
        ("turn2-bash.Stop.1", {"transcript_path": 3}, '"transcript_path"'),
        ("turn9-compact.PostCompact.1", {"compact_summary": None}, '"compact_summary"'),
        ("turn9-compact.PostCompact.1", {"compact_summary": "<analysis>only</analysis>"}, "non-empty"),
        ("turn1-plain.SessionStart.1", {"cwd": "/tmp/\u0000x"}, "NUL"),
        ("turn1-plain.SessionStart.1", {"hook_event_name": None, "schema": None, "event": None}, "schema"),
    ],
)
def test_missing_or_wrong_fields_are_usage_errors(
    name: str, changes: dict[str, Any], expected: str, home: Path
) -> None:
    with pytest.raises(UsageError, match=expected):
        parse_event(None, payload(name, **changes), None, home=home, now=NOW)


def test_unknown_fields_are_ignored_and_wrong_fields_of_ignored_events_too(home: Path) -> None:
    (event,) = events(payload("turn2-bash.Stop.1", brand_new_field={"a": [1]}), home)
    assert event.event == "turn_end"
    assert events(payload("turn2-bash.PreToolUse.1", session_id=5, cwd=[1]), home) == ()


def test_event_argument_must_name_the_payloads_event(home: Path) -> None:
    assert events(payload("turn2-bash.Stop.1"), home, "Stop")
    with pytest.raises(UsageError, match="'Stop' event but the command was `memevo hook turn_end`"):
        parse_event(None, payload("turn2-bash.Stop.1"), "turn_end", home=home, now=NOW)
    with pytest.raises(UsageError, match="hook_event_name"):
        parse_event("claude-code", {"schema": "memevo.hook/v1", "event": "turn_end"}, None, home=home, now=NOW)


def test_only_the_prompt_and_standing_digests_are_printed_in_the_envelope() -> None:
    digest = "memevo recall:\n- [abc] The staging database listens on port 5433"
    prompt = HookEvent("user_prompt", agent="claude-code", prompt="which port?")
    assert json.loads(render(prompt, digest)) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": digest}
    }
    assert "\n" not in render(prompt, digest)
    assert render(prompt, "") == ""
    for name in ("turn_end", "compaction", "session_end"):
        assert render(HookEvent(name, agent="claude-code"), "anything") == ""
    # The session start prints the standing digest, in the same envelope for SessionStart.
    standing = '<memevo-standing>\n{"id": "abc"}\n</memevo-standing>'
    printed = render(HookEvent("session_start", agent="claude-code"), standing)
    assert printed == json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": standing}}
    )
    assert render(HookEvent("session_start", agent="claude-code"), "") == ""


def test_earlier_turns_are_found_beyond_the_first_read_window(home: Path, tmp_path: Path) -> None:
    items = []
    for i in range(7):
        items += [
            user_record(f"question number {i}", f"turn-{i}", uuid=f"u{i}"),
            assistant_record("long answer " + "w" * 200_000, uuid=f"a{i}", message_id=f"m{i}"),
        ]
    path = write_records(tmp_path / "t.jsonl", items)
    assert path.stat().st_size > 2 * PROMPT_WINDOW_BYTES
    (event,) = events(payload("turn2-bash.UserPromptSubmit.1", path, prompt_id="turn-7", prompt="next"), home)
    assert event.user_messages == tuple(f"question number {i}" for i in range(2, 7))


def test_a_turn_of_many_long_user_messages_is_bounded_not_refused(home: Path, tmp_path: Path) -> None:
    from cli.hooks.event import MAX_TEXT, MAX_USER_MESSAGES

    said = [user_record(f"and one more thing, number {i}", TURN_AFTER_COMPACT, uuid=f"u{i}") for i in range(70)]
    said.append(user_record("here is the whole log: " + "x" * (MAX_TEXT + 50), TURN_AFTER_COMPACT, uuid="u-log"))
    path = write_records(tmp_path / "t.jsonl", [*records_until(TURN_BASH), *said, assistant_record("done")])
    (event,) = events(payload("turn10-after-compact.Stop.1", path, last_assistant_message=None), home)
    assert len(event.user_messages) == MAX_USER_MESSAGES  # the last ones
    assert event.user_messages[0] == "and one more thing, number 7"
    assert len(event.user_messages[-1]) == MAX_TEXT and event.user_messages[-1].startswith("here is the whole log")
