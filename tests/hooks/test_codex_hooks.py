"""`memevo hook` as Codex runs it: a real process, the recorded payload on stdin."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memory_core.recall.digest import MAX_DIGEST_BYTES
from tests.hooks.codex_data import (
    PROJECT,
    ROLLOUT,
    SAID,
    SESSION,
    TURN_RECALL,
    TURN_TOOLS,
    assistant_message,
    hook_process,
    memevo_payload,
    memevo_payloads,
    payload,
    records_until,
    user_turn,
    write_records,
)
from tests.hooks.support import assert_fails_in_one_line, claim_status, loaded_heavy_modules, sources, unreadable_memory

HOOK = ("--agent", "codex")  # what `memevo install codex` writes


def new_turn(tmp_path: Path, said: str, turn_id: str = "t-new") -> Path:
    """The recorded rollout with one more turn in which the user said ``said``."""
    return write_records(
        tmp_path / "r.jsonl",
        records_until(TURN_TOOLS) + user_turn(said, turn_id) + [assistant_message("Noted.", turn_id)],
    )


@pytest.mark.parametrize("args", [HOOK, ()])
def test_user_prompt_submit_prints_exactly_the_envelope_and_no_other_key(
    home: Path, seeded: str, args: tuple[str, ...]
) -> None:
    db_before = (home / "memory.db").read_bytes()
    data = memevo_payload("UserPromptSubmit", TURN_RECALL, prompt="which port does the staging database use?")
    result = hook_process(data, *args)
    assert result.returncode == 0 and result.stderr == b""
    envelope = json.loads(result.stdout)
    assert result.stdout == (json.dumps(envelope) + "\n").encode()  # one line, nothing else
    assert list(envelope) == ["hookSpecificOutput"]  # Codex fails a hook on any unknown key
    assert list(envelope["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert envelope["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    context = envelope["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("<memevo-recall>") and seeded in context and "5433" in context
    assert len(context.encode("utf-8")) <= MAX_DIGEST_BYTES
    assert (home / "memory.db").read_bytes() == db_before  # recall is read-only


def test_user_prompt_submit_prints_nothing_when_nothing_is_relevant(home: Path, seeded: str) -> None:
    result = hook_process(payload("UserPromptSubmit"), *HOOK)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    fresh = home.parent / "never-used"
    result = hook_process(payload("UserPromptSubmit"), *HOOK, env={"MEMEVO_HOME": str(fresh)})
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_user_prompt_submit_prints_nothing_when_memory_cannot_be_read(home: Path) -> None:
    unreadable_memory(home)
    result = hook_process(payload("UserPromptSubmit", prompt="which port does the staging database use?"), *HOOK)
    assert result.returncode == 0 and result.stdout == b""
    assert len(result.stderr.decode().strip().splitlines()) == 1


def test_stop_captures_a_remember_that_turn_and_prints_nothing(home: Path, tmp_path: Path) -> None:
    said = "Remember that the release branch is cut on Thursdays."
    rollout = new_turn(tmp_path, said)
    stop = memevo_payload("Stop", TURN_TOOLS, rollout, turn_id="t-new", last_assistant_message="Noted.")
    result = hook_process(stop, *HOOK)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")  # Stop prints nothing, ever
    assert sources(home) == [("user_statement", "codex", SESSION, PROJECT, said)]
    again = hook_process(stop, *HOOK)
    assert again.stdout == b"" and len(sources(home)) == 1


@pytest.mark.slow  # twelve hook processes
def test_the_recorded_session_captures_its_statement_once(home: Path) -> None:
    """The payloads of memevo's events recorded beside its hooks, replayed in order against the rollout."""
    for data in memevo_payloads():
        if data["hook_event_name"] not in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
            continue  # memevo installs no tool hooks
        data["transcript_path"] = str(ROLLOUT)
        result = hook_process(data, *HOOK)
        assert (result.returncode, result.stderr) == (0, b""), data["hook_event_name"]
        assert result.stdout == b"", data["hook_event_name"]  # nothing known: no digest either
    assert sources(home) == [("user_statement", "codex", SESSION, PROJECT, SAID[next(iter(SAID))])]


def test_stop_falls_back_to_the_stashed_prompt_when_the_rollout_lags(home: Path, tmp_path: Path) -> None:
    said = "remember that deploys need a change ticket"
    lagging = write_records(tmp_path / "r.jsonl", records_until(TURN_TOOLS, through=False))
    prompt = hook_process(memevo_payload("UserPromptSubmit", TURN_TOOLS, lagging, prompt=said), *HOOK)
    assert (prompt.returncode, prompt.stdout, prompt.stderr) == (0, b"", b"")
    stop = hook_process(memevo_payload("Stop", TURN_TOOLS, lagging), *HOOK)
    assert (stop.returncode, stop.stdout, stop.stderr) == (0, b"", b"")
    assert [(s[0], s[4]) for s in sources(home)] == [("user_statement", said)]


def test_feedback_in_a_codex_turn_is_applied(home: Path, tmp_path: Path, seeded: str) -> None:
    rollout = new_turn(tmp_path, f"memory {seeded} is incorrect.")
    result = hook_process(memevo_payload("Stop", TURN_TOOLS, rollout, turn_id="t-new"), *HOOK)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert claim_status(home, seeded) == ("conflicted",)
    assert sources(home) == []


def test_tool_and_subagent_payloads_are_ignored_quietly(home: Path, tmp_path: Path) -> None:
    rollout = new_turn(tmp_path, "remember that subagents are not the user")
    for data in (
        payload("PreToolUse"),
        payload("PostToolUse"),
        memevo_payload("Stop", TURN_TOOLS, rollout, turn_id="t-new", agent_id="a1"),
    ):
        result = hook_process(data, *HOOK)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not home.exists()


def test_session_end_is_fast_and_silent(home: Path) -> None:
    from cli.hooks.session_stash import stash_path

    hook_process(memevo_payload("UserPromptSubmit", TURN_TOOLS), *HOOK)
    assert stash_path(home, SESSION).exists()
    started = time.monotonic()
    result = hook_process(memevo_payload("SessionEnd"), *HOOK, timeout=10)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert time.monotonic() - started < 3  # Codex clamps SessionEnd hooks to 3 s
    assert not stash_path(home, SESSION).exists()
    assert not (home / "memory.db").exists()


def test_bad_codex_input_is_one_line_and_exit_zero(home: Path) -> None:
    cases = [
        (payload("UserPromptSubmit", prompt=None), HOOK, '"prompt"'),
        (payload("Stop", stop_hook_active="yes"), HOOK, '"stop_hook_active"'),
        (payload("Stop"), (*HOOK, "turn_end"), "but the command was"),
        ({"schema": "memevo.hook/v1", "event": "turn_end"}, HOOK, "hook_event_name"),
    ]
    for data, args, expected in cases:
        assert_fails_in_one_line(data, args, expected)


def test_codex_hot_paths_stay_light(home: Path, seeded: str, tmp_path: Path) -> None:
    prompt = memevo_payload("UserPromptSubmit", TURN_RECALL, prompt="which port does the staging database use?")
    assert loaded_heavy_modules(home, json.dumps(prompt)) == []
    rollout = new_turn(tmp_path, "remember that the build needs node 20")
    stop = memevo_payload("Stop", TURN_TOOLS, rollout, turn_id="t-new")
    assert loaded_heavy_modules(home, json.dumps(stop)) == []  # the nudge is written without huey
    assert len(sources(home)) == 1
    assert loaded_heavy_modules(home, json.dumps(memevo_payload("SessionEnd"))) == []
