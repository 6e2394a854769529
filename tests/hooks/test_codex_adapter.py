"""Each real Codex payload becomes the normalized events memevo acts on (or none)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from cli.hooks import session_stash
from cli.hooks.adapters import detect_adapter, parse_event
from cli.hooks.adapters.codex import EARLIER_TURNS, LAG_WAIT_SECONDS, render
from cli.hooks.event import HookEvent
from memory_core import clock
from memory_core.errors import UsageError
from tests.hooks import claude_data
from tests.hooks.codex_data import (
    DATA,
    PROJECT,
    SAID,
    SESSION,
    TURN_RECALL,
    TURN_REMEMBER,
    TURN_TOOLS,
    assistant_message,
    memevo_payload,
    memevo_payloads,
    payload,
    records_until,
    user_turn,
    write_records,
)
from tests.hooks.support import replace_records

NOW = clock.now()
SHARED_SESSION = "01a237cd-4119-7bf0-bef3-9ee89b32f130"


def events(data: dict[str, Any], home: Path, event_arg: str | None = None) -> tuple[HookEvent, ...]:
    parsed = parse_event(None, data, event_arg, home=home, now=NOW)
    assert parsed.adapter == "codex"
    return parsed.events


def test_every_recorded_payload_is_detected_as_codex_and_claude_codes_are_not() -> None:
    recorded = [
        json.loads(p.read_text())["stdin"]
        for p in sorted((DATA / "payloads").glob("*.json"))
        if p.name != "model-request-with-injection.json"
    ]
    recorded += [json.loads(line)["stdin"] for line in (DATA / "payloads" / "all.jsonl").read_text().splitlines()]
    recorded += memevo_payloads()
    assert {data["hook_event_name"] for data in recorded} == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    }
    for data in recorded:
        assert detect_adapter(data) == "codex", data["hook_event_name"]
    for path in sorted((claude_data.DATA / "payloads").glob("*.json")):  # MessageDisplay has a turn_id too
        assert detect_adapter(json.loads(path.read_text())["payload"]) == "claude-code", path.name
    # An ephemeral Codex session has no rollout: its SessionStart cannot be told apart, and
    # Claude Code's adapter does the same with it (nudge recovery).
    assert detect_adapter(payload("SessionStart.startup", transcript_path=None)) == "claude-code"


@pytest.mark.parametrize("name", ["PreToolUse", "PostToolUse"])
def test_tool_events_become_nothing_and_touch_nothing(name: str, home: Path) -> None:
    assert events(payload(name), home) == ()
    assert not home.exists()


def test_any_payload_of_a_subagent_is_skipped(home: Path) -> None:
    for name in ("Stop", "UserPromptSubmit", "SessionStart.startup"):
        assert events(payload(name, agent_id="a1", agent_type="worker"), home) == ()
    assert not home.exists()


def test_session_start_nudges_recovery_only(home: Path) -> None:
    for name in ("SessionStart.startup", "SessionStart.resume"):
        (event,) = events(payload(name), home)
        assert (event.event, event.agent, event.session_id, event.cwd) == (
            "session_start",
            "codex",
            SHARED_SESSION,
            PROJECT,
        )
        assert event.transcript_path and event.transcript_path.startswith("/home/user/.codex/sessions/")


def test_user_prompt_takes_the_earlier_turns_and_stashes_the_prompt(home: Path, tmp_path: Path) -> None:
    as_seen = write_records(tmp_path / "r.jsonl", records_until(TURN_TOOLS, through=False))
    (event,) = events(memevo_payload("UserPromptSubmit", TURN_TOOLS, as_seen), home)
    assert (event.event, event.agent, event.session_id, event.cwd) == ("user_prompt", "codex", SESSION, PROJECT)
    assert event.prompt == SAID[TURN_TOOLS]
    assert event.user_messages == (SAID[TURN_REMEMBER], SAID[TURN_RECALL])
    stash = session_stash.read_prompt(home, SESSION)
    assert stash is not None and (stash.prompt, stash.prompt_id) == (SAID[TURN_TOOLS], TURN_TOOLS)


def test_first_prompt_of_a_session_has_no_earlier_turns(home: Path, tmp_path: Path) -> None:
    as_seen = write_records(tmp_path / "r.jsonl", records_until(TURN_REMEMBER, through=False))
    (event,) = events(memevo_payload("UserPromptSubmit", TURN_REMEMBER, as_seen), home)
    assert event.user_messages == () and event.prompt == SAID[TURN_REMEMBER]
    (event,) = events(payload("UserPromptSubmit", transcript_path=None), home)  # an ephemeral session
    assert event.user_messages == () and event.prompt == "hello first turn"
    assert events(payload("UserPromptSubmit", prompt="   "), home) == ()


def test_at_most_five_earlier_turns_are_taken(home: Path, tmp_path: Path) -> None:
    items = records_until(TURN_REMEMBER)
    for i in range(7):
        items += user_turn(f"question number {i}", f"t-{i}") + [assistant_message(f"answer {i}", f"t-{i}")]
    path = write_records(tmp_path / "r.jsonl", items)
    (event,) = events(memevo_payload("UserPromptSubmit", TURN_TOOLS, path, prompt="next"), home)
    assert len(event.user_messages) == EARLIER_TURNS
    assert event.user_messages == tuple(f"question number {i}" for i in range(2, 7))


def test_stop_reads_the_turn_its_turn_id_names(home: Path) -> None:
    (event,) = events(memevo_payload("Stop", TURN_TOOLS), home)
    assert (event.event, event.agent, event.session_id, event.cwd) == ("turn_end", "codex", SESSION, PROJECT)
    assert event.user_messages == (SAID[TURN_TOOLS],)
    assert [(o.tool, o.input, o.status) for o in event.operations] == [
        ("exec_command", "ls /nonexistent-dir", "error"),
        ("exec_command", "echo hi-from-tool", "ok"),
    ]
    assert event.final_message == "The listing failed; echo printed hi-from-tool."  # the payload's
    assert event.ended_in_error is False
    (earlier,) = events(memevo_payload("Stop", TURN_REMEMBER), home)  # the whole rollout, read later
    assert earlier.user_messages == (SAID[TURN_REMEMBER],) and earlier.operations == ()


def test_stop_without_its_rollout_uses_the_stashed_prompt(home: Path) -> None:
    """The shared payloads name a rollout that was not kept: the stashed prompt stands in."""
    events(payload("UserPromptSubmit.2"), home)
    (event,) = events(payload("Stop.2"), home)
    assert event.user_messages == ("second turn [[tool: shell: echo hi-from-tool]]",)
    assert event.final_message == "tool done: hi-from-tool" and event.operations == ()


def test_stop_hook_active_is_skipped(home: Path) -> None:
    assert events(memevo_payload("Stop", TURN_TOOLS, stop_hook_active=True), home) == ()


def test_stop_falls_back_to_the_stash_when_the_rollout_lags(home: Path, tmp_path: Path) -> None:
    lagging = write_records(tmp_path / "r.jsonl", records_until(TURN_TOOLS, through=False))
    events(memevo_payload("UserPromptSubmit", TURN_TOOLS, lagging), home)
    started = time.monotonic()
    (event,) = events(memevo_payload("Stop", TURN_TOOLS, lagging), home)
    waited = time.monotonic() - started
    assert event.user_messages == (SAID[TURN_TOOLS],)
    assert event.final_message == "The listing failed; echo printed hi-from-tool."
    assert event.operations == ()
    assert LAG_WAIT_SECONDS * 0.9 <= waited < LAG_WAIT_SECONDS + 1.0


def test_stop_ignores_an_earlier_turns_stash(home: Path, tmp_path: Path) -> None:
    lagging = write_records(tmp_path / "r.jsonl", records_until(TURN_TOOLS, through=False))
    events(memevo_payload("UserPromptSubmit", TURN_RECALL, lagging), home)  # another turn id
    (event,) = events(memevo_payload("Stop", TURN_TOOLS, lagging), home)
    assert event.user_messages == ()


def test_stop_uses_the_rollout_when_the_turn_appears_during_the_wait(home: Path, tmp_path: Path) -> None:
    before = records_until(TURN_TOOLS, through=False)
    path = write_records(tmp_path / "r.jsonl", before)
    events(memevo_payload("UserPromptSubmit", TURN_TOOLS, path), home)
    writer = threading.Timer(0.1, lambda: replace_records(path, records_until(TURN_TOOLS)))
    writer.start()
    try:
        (event,) = events(memevo_payload("Stop", TURN_TOOLS, path, last_assistant_message=None), home)
    finally:
        writer.join()
    assert len(event.operations) == 2
    assert event.final_message == "The listing failed; echo printed hi-from-tool."  # from the rollout


def test_session_end_deletes_the_stash(home: Path) -> None:
    events(memevo_payload("UserPromptSubmit", TURN_TOOLS), home)
    assert session_stash.read_prompt(home, SESSION) is not None
    (end,) = events(memevo_payload("SessionEnd"), home)
    assert end.event == "session_end"
    assert session_stash.read_prompt(home, SESSION) is None


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        ("UserPromptSubmit", {"prompt": None}, '"prompt"'),
        ("UserPromptSubmit", {"prompt": ["a"]}, '"prompt"'),
        ("UserPromptSubmit", {"turn_id": 7}, '"turn_id"'),
        ("UserPromptSubmit", {"session_id": 7}, '"session_id"'),
        ("Stop", {"stop_hook_active": "no"}, '"stop_hook_active"'),
        ("Stop", {"last_assistant_message": {"x": 1}}, '"last_assistant_message"'),
        ("Stop", {"transcript_path": 3}, '"transcript_path"'),
        ("SessionStart.startup", {"cwd": "/tmp/\u0000x"}, "NUL"),
        ("Stop", {"hook_event_name": None}, "hook_event_name"),
    ],
)
def test_missing_or_wrong_fields_are_usage_errors(
    name: str, changes: dict[str, Any], expected: str, home: Path
) -> None:
    with pytest.raises(UsageError, match=expected) as raised:
        parse_event("codex", payload(name, **changes), None, home=home, now=NOW)
    assert "Codex" in str(raised.value)


def test_unknown_fields_are_ignored_and_wrong_fields_of_ignored_events_too(home: Path) -> None:
    (event,) = events(memevo_payload("Stop", TURN_TOOLS, brand_new_field={"a": [1]}), home)
    assert event.event == "turn_end"
    assert events(payload("PreToolUse", session_id=5, cwd=[1]), home) == ()


def test_event_argument_must_name_the_payloads_event(home: Path) -> None:
    assert events(payload("SessionStart.startup"), home, "SessionStart")
    with pytest.raises(UsageError, match="Codex's 'Stop' event but the command was `memevo hook turn_end`"):
        parse_event(None, payload("Stop"), "turn_end", home=home, now=NOW)


def test_only_the_prompt_and_standing_digests_are_printed_in_exactly_the_envelope() -> None:
    digest = '<memevo-recall>\n{"id": "abc"}\n</memevo-recall>'
    prompt = HookEvent("user_prompt", agent="codex", prompt="which port?")
    printed = render(prompt, digest)
    assert printed == json.dumps(
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": digest}}
    )
    assert list(json.loads(printed)) == ["hookSpecificOutput"]
    assert list(json.loads(printed)["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert render(prompt, "") == ""
    for name in ("turn_end", "compaction", "session_end"):
        assert render(HookEvent(name, agent="codex"), "anything") == ""
    # The session start prints the standing digest, in the same envelope for SessionStart.
    standing = '<memevo-standing>\n{"id": "abc"}\n</memevo-standing>'
    printed = render(HookEvent("session_start", agent="codex"), standing)
    assert printed == json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": standing}}
    )
    assert render(HookEvent("session_start", agent="codex"), "") == ""
