"""`memevo hook` as Gemini CLI runs it: a real process, a recorded 0.61 payload on stdin."""

from __future__ import annotations

import json
from pathlib import Path

from memory_core.recall.digest import MAX_DIGEST_BYTES
from tests.hooks.gemini_data import (
    SESSION,
    TURN_PREFERENCE,
    TURN_SLASH,
    TURN_STATEMENT,
    TURN_TOOLS,
    hook_process,
    payload,
    session_payload,
)
from tests.hooks.support import assert_fails_in_one_line, claim_status, loaded_heavy_modules, sources, unreadable_memory

AGENT = ("--agent", "gemini")  # what `memevo install gemini` writes


def test_before_agent_prints_exactly_the_envelope(home: Path, seeded: str) -> None:
    db_before = (home / "memory.db").read_bytes()
    result = hook_process(payload("BeforeAgent", prompt="which port does the staging database use?"), *AGENT)
    assert result.returncode == 0 and result.stderr == b""
    envelope = json.loads(result.stdout)
    assert result.stdout == (json.dumps(envelope) + "\n").encode()  # one line, nothing else
    assert list(envelope) == ["hookSpecificOutput"]
    assert list(envelope["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert envelope["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    context = envelope["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("<memevo-recall>") and seeded in context and "5433" in context
    assert len(context.encode("utf-8")) <= MAX_DIGEST_BYTES
    assert (home / "memory.db").read_bytes() == db_before  # recall is read-only


def test_before_agent_prints_nothing_without_a_match(home: Path, seeded: str) -> None:
    result = hook_process(payload("BeforeAgent"), *AGENT)  # "hello first turn"
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    fresh = hook_process(
        payload("BeforeAgent", prompt="which port does the staging database use?"),
        *AGENT,
        env={"MEMEVO_HOME": str(home.parent / "never-used")},
    )
    assert (fresh.returncode, fresh.stdout, fresh.stderr) == (0, b"", b"")


def test_before_agent_prints_nothing_when_memory_cannot_be_read(home: Path) -> None:
    unreadable_memory(home)
    result = hook_process(payload("BeforeAgent", prompt="which port does the staging database use?"), *AGENT)
    assert result.returncode == 0 and result.stdout == b""
    assert len(result.stderr.decode().strip().splitlines()) == 1


def test_after_agent_captures_a_remember_that_turn_and_prints_nothing(home: Path, tmp_path: Path) -> None:
    data = session_payload("AfterAgent", TURN_STATEMENT, tmp_path)
    said = "Remember that the staging database listens on port 5433."
    result = hook_process(data, *AGENT)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")  # a decision would block
    assert sources(home) == [("user_statement", "gemini", SESSION, "/home/user/project", said)]
    again = hook_process(data, *AGENT)
    assert again.stdout == b"" and len(sources(home)) == 1


def test_after_agent_of_each_recorded_turn(home: Path, tmp_path: Path) -> None:
    for turn in (TURN_TOOLS, TURN_SLASH):  # no cue; a slash command is never a statement
        result = hook_process(session_payload("AfterAgent", turn, tmp_path), *AGENT)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert sources(home) == []
    result = hook_process(session_payload("AfterAgent", TURN_PREFERENCE, tmp_path), *AGENT)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert [(s[0], s[4]) for s in sources(home)] == [("user_statement", "I prefer tabs over spaces.")]


def test_after_agent_is_detected_without_the_agent_option(home: Path, tmp_path: Path) -> None:
    result = hook_process(session_payload("AfterAgent", TURN_STATEMENT, tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert [s[1] for s in sources(home)] == ["gemini"]


def test_stop_hook_active_captures_nothing(home: Path, tmp_path: Path) -> None:
    data = session_payload("AfterAgent", TURN_STATEMENT, tmp_path, stop_hook_active=True)
    result = hook_process(data, *AGENT)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert sources(home) == []


def test_feedback_in_a_gemini_turn_is_applied(home: Path, tmp_path: Path, seeded: str) -> None:
    text = f"memory {seeded} is incorrect."
    data = payload("AfterAgent", tmp_path / "no-transcript.jsonl", prompt=text)
    result = hook_process(data, *AGENT)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert claim_status(home, seeded) == ("conflicted",)
    assert sources(home) == []


def test_other_events_are_ignored_without_touching_the_state_dir(home: Path) -> None:
    for name in (
        "PreCompress",
        "BeforeTool",
        "AfterTool",
        "BeforeModel",
        "AfterModel",
        "BeforeToolSelection",
        "SessionEnd",
    ):
        result = hook_process(payload(name), *AGENT)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), name
    assert not home.exists()


def test_bad_native_input_is_one_line_and_exit_zero(home: Path) -> None:
    cases = [
        (payload("BeforeAgent", prompt=None), AGENT, '"prompt"'),
        (payload("AfterAgent", stop_hook_active="yes"), AGENT, '"stop_hook_active"'),
        (payload("AfterAgent"), (*AGENT, "turn_end"), "but the command was"),
        ({"schema": "memevo.hook/v1", "event": "turn_end"}, AGENT, "hook_event_name"),
    ]
    for data, args, expected in cases:
        assert_fails_in_one_line(data, args, expected)
    assert "AfterAgent:" in (home / "logs" / "hooks.log").read_text()


def test_gemini_hot_paths_stay_light(home: Path, seeded: str, tmp_path: Path) -> None:
    prompt = payload("BeforeAgent", prompt="which port does the staging database use?")
    assert loaded_heavy_modules(home, json.dumps(prompt)) == []
    # AfterAgent captures and nudges without a validation or HTTP library, and without huey
    # (the nudge is written to the queue directly: workers/nudge_queue.py).
    turn = session_payload("AfterAgent", TURN_STATEMENT, tmp_path)
    assert loaded_heavy_modules(home, json.dumps(turn)) == []
    assert len(sources(home)) == 1
    assert loaded_heavy_modules(home, json.dumps(payload("PreCompress"))) == []
