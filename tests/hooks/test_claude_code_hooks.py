"""`memevo hook` as Claude Code runs it: a real process, the recorded payload on stdin."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memory_core.recall.digest import MAX_DIGEST_BYTES
from tests.hooks.claude_data import (
    SESSION,
    TURN_AFTER_COMPACT,
    TURN_BASH,
    assistant_record,
    hook_process,
    payload,
    records_until,
    user_record,
    write_records,
)
from tests.hooks.support import assert_fails_in_one_line, claim_status, loaded_heavy_modules, sources, unreadable_memory

INLINE_CONTEXT_LIMIT = 10_000  # above this Claude Code replaces the context by a file path and a preview


def test_user_prompt_submit_prints_exactly_the_envelope(home: Path, seeded: str) -> None:
    db_before = (home / "memory.db").read_bytes()
    result = hook_process(payload("turn2-bash.UserPromptSubmit.1", prompt="which port does the staging database use?"))
    assert result.returncode == 0 and result.stderr == b""
    envelope = json.loads(result.stdout)
    assert result.stdout == (json.dumps(envelope) + "\n").encode()  # one line, json.dumps, nothing else
    assert list(envelope) == ["hookSpecificOutput"]
    assert list(envelope["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert envelope["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    context = envelope["hookSpecificOutput"]["additionalContext"]
    assert seeded in context and "5433" in context
    assert len(context.encode("utf-8")) <= MAX_DIGEST_BYTES < INLINE_CONTEXT_LIMIT
    assert (home / "memory.db").read_bytes() == db_before  # recall is read-only


def test_user_prompt_submit_prints_nothing_without_a_match(home: Path, seeded: str) -> None:
    result = hook_process(payload("turn1-plain.UserPromptSubmit.1"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    fresh_home = home.parent / "never-used"
    result = hook_process(payload("turn1-plain.UserPromptSubmit.1"), env={"MEMEVO_HOME": str(fresh_home)})
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_user_prompt_submit_prints_nothing_when_memory_cannot_be_read(home: Path, tmp_path: Path) -> None:
    unreadable_memory(home)
    prompt = payload("turn2-bash.UserPromptSubmit.1", prompt="which port does the staging database use?")
    result = hook_process(prompt)
    assert result.returncode == 0 and result.stdout == b""
    assert len(result.stderr.decode().strip().splitlines()) == 1
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = hook_process(prompt, env={"MEMEVO_HOME": str(blocker)})
    assert result.returncode == 0 and result.stdout == b""


def test_stop_captures_a_remember_that_turn_and_prints_nothing(home: Path, tmp_path: Path) -> None:
    said = "remember that the staging database listens on port 5433"
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH) + [user_record(said, TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    result = hook_process(payload("turn10-after-compact.Stop.1", transcript))
    assert result.returncode == 0
    assert result.stdout == b""  # any output makes Claude Code continue the turn
    assert result.stderr == b""
    assert sources(home) == [("user_statement", "claude-code", SESSION, "/home/user/project", said)]
    again = hook_process(payload("turn10-after-compact.Stop.1", transcript))
    assert again.stdout == b"" and len(sources(home)) == 1


def test_stop_hook_active_captures_nothing(home: Path, tmp_path: Path) -> None:
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH)
        + [user_record("remember that builds need node 20", TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    result = hook_process(payload("turn10-after-compact.Stop.1", transcript, stop_hook_active=True))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert sources(home) == []


def test_stop_falls_back_to_the_stashed_prompt_when_the_transcript_lags(home: Path, tmp_path: Path) -> None:
    said = "remember that the release branch is cut on Thursdays"
    lagging = write_records(tmp_path / "t.jsonl", records_until(TURN_BASH))  # the new turn is not written yet
    prompt = hook_process(payload("turn10-after-compact.UserPromptSubmit.1", lagging, prompt=said))
    assert (prompt.returncode, prompt.stdout, prompt.stderr) == (0, b"", b"")
    stop = hook_process(payload("turn10-after-compact.Stop.1", lagging))
    assert (stop.returncode, stop.stdout, stop.stderr) == (0, b"", b"")
    assert [(s[0], s[4]) for s in sources(home)] == [("user_statement", said)]


def test_feedback_in_a_claude_code_turn_is_applied(home: Path, tmp_path: Path, seeded: str) -> None:
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH)
        + [user_record(f"memory {seeded} is incorrect.", TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    result = hook_process(payload("turn10-after-compact.Stop.1", transcript))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert claim_status(home, seeded) == ("conflicted",)
    assert sources(home) == []  # feedback is not learned as a statement


@pytest.mark.parametrize(
    "order",
    [
        ("turn9-compact.PostCompact.1", "turn9-compact.SessionStart.2"),
        ("turn9-compact.SessionStart.2", "turn9-compact.PostCompact.1"),
    ],
)
def test_a_compaction_summary_is_captured_once(home: Path, order: tuple[str, str]) -> None:
    # Claude Code 2.1.197 ran SessionStart(compact) before PostCompact; either order gives one source.
    for name in order + order:
        result = hook_process(payload(name))
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), name
    captured = sources(home)
    assert len(captured) == 1
    assert captured[0][:3] == ("summary", "claude-code", SESSION)
    assert captured[0][4] == (
        "1. Primary Request and Intent: FAKE-COMPACT-SUMMARY of the conversation so far (request 17)."
    )


def test_subagent_payloads_capture_nothing(home: Path, tmp_path: Path) -> None:
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH)
        + [user_record("remember that subagents are not the user", TURN_AFTER_COMPACT), assistant_record("ok")],
    )
    for data in (
        payload("turn3-subagent.SubagentStop.1", transcript),
        payload("turn9-compact.SubagentStop.1"),
        payload("turn3-subagent.SubagentStart.1"),
        payload("turn10-after-compact.Stop.1", transcript, agent_id="ac1bd997c8fc6dd0f"),
    ):
        result = hook_process(data)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not (home / "memory.db").exists()


def test_session_end_is_fast_and_silent(home: Path) -> None:
    hook_process(payload("turn2-bash.UserPromptSubmit.1"))
    from cli.hooks.session_stash import stash_path

    assert stash_path(home, SESSION).exists()
    started = time.monotonic()
    result = hook_process(payload("turn1-plain.SessionEnd.1"), timeout=10)
    elapsed = time.monotonic() - started
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert elapsed < 1.5  # Claude Code gives SessionEnd hooks 1.5 s
    assert not stash_path(home, SESSION).exists()
    assert not (home / "memory.db").exists()


def test_other_events_are_ignored_quietly(home: Path) -> None:
    for name in (
        "turn2-bash.PreToolUse.1",
        "turn2-bash.PostToolUse.1",
        "turn2-bash.PostToolUseFailure.1",
        "turn1-plain.InstructionsLoaded.1",
        "turn1-plain.MessageDisplay.1",
        "turn9-compact.PreCompact.1",
    ):
        result = hook_process(payload(name))
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), name
    assert not home.exists()


def test_bad_native_input_is_one_line_and_exit_zero(home: Path) -> None:
    cases = [
        (payload("turn2-bash.UserPromptSubmit.1", prompt=None), (), '"prompt"'),
        (payload("turn2-bash.Stop.1", stop_hook_active="yes"), (), '"stop_hook_active"'),
        (payload("turn9-compact.PostCompact.1", compact_summary=12), (), '"compact_summary"'),
        (payload("turn2-bash.Stop.1"), ("turn_end",), "but the command was"),
        ({"schema": "memevo.hook/v1", "event": "turn_end"}, ("--agent", "claude-code"), "hook_event_name"),
    ]
    for data, args, expected in cases:
        assert_fails_in_one_line(data, args, expected)
    assert "Stop:" in (home / "logs" / "hooks.log").read_text()


def test_the_event_argument_is_optional_only_for_native_payloads(home: Path) -> None:
    named = hook_process(payload("turn9-compact.PostCompact.1"), "--agent", "claude-code", "PostCompact")
    assert (named.returncode, named.stdout, named.stderr) == (0, b"", b"")
    assert len(sources(home)) == 1
    generic = {"schema": "memevo.hook/v1", "event": "compaction", "summary": "Decision: x"}
    result = hook_process(generic)
    assert result.returncode == 0 and b"missing EVENT" in result.stderr


def test_claude_code_hot_paths_stay_light(home: Path, seeded: str, tmp_path: Path) -> None:
    prompt = payload("turn2-bash.UserPromptSubmit.1", prompt="which port does the staging database use?")
    assert loaded_heavy_modules(home, json.dumps(prompt)) == []
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH)
        + [user_record("remember that the build needs node 20", TURN_AFTER_COMPACT), assistant_record("ok")],
    )
    # Stop captures and nudges without a validation or HTTP library, and without huey: the
    # nudge is written to the queue directly (workers/nudge_queue.py).
    assert loaded_heavy_modules(home, json.dumps(payload("turn10-after-compact.Stop.1", transcript))) == []
    assert len(sources(home)) == 1
    assert loaded_heavy_modules(home, json.dumps(payload("turn1-plain.SessionEnd.1"))) == []
