"""Smoke tests: the real Claude Code CLI, headless, against the loopback fake Messages API.

They pin down what the memevo hooks rely on: the reply reaches ``claude -p``, a
UserPromptSubmit hook's context reaches the model, a silent Stop hook ends the turn,
``--continue`` keeps the session, and ``/compact`` hands the summary to PostCompact.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.agents.helpers import recording_hook, records
from tests.support.agent_clis import ClaudeRunner, command_line, hook_settings
from tests.support.fake_anthropic import FakeAnthropicServer, Reply, request_text, turn_text

pytestmark = pytest.mark.slow

CONTEXT_HOOK = """\
import json, sys
sys.stdin.read()
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": sys.argv[1]}}))
"""


@pytest.fixture
def runner(claude_bin: Path, claude_fake: FakeAnthropicServer, tmp_path: Path) -> ClaudeRunner:
    return ClaudeRunner.for_test(claude_fake.base_url, tmp_path, binary=claude_bin, timeout=60)


def _script(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_hello_returns_the_fake_reply(runner: ClaudeRunner, claude_fake: FakeAnthropicServer) -> None:
    claude_fake.enqueue(Reply(text="Hello from the fake."))

    run = runner.run("hello")

    assert run.result == "Hello from the fake.", run.describe()
    assert run.session_id
    main = claude_fake.main_requests()
    assert len(main) == 1
    assert "hello" in turn_text(main[0])
    assert main[0].body is not None and main[0].body.get("stream") is True
    assert all("x-api-key" not in r.headers for r in claude_fake.requests)
    assert claude_fake.pending() == 0


def test_prompt_hook_context_reaches_the_model_and_silent_stop_hook_ends_the_turn(
    runner: ClaudeRunner, claude_fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    inject = _script(tmp_path, "inject.py", CONTEXT_HOOK)
    stops = tmp_path / "stop.jsonl"
    runner.write_user_settings(
        hook_settings(
            {
                "UserPromptSubmit": command_line(sys.executable, inject, "MARKER-123"),
                "Stop": recording_hook(tmp_path, stops),
            }
        )
    )
    claude_fake.enqueue("Answer one.")

    run = runner.run("what do you remember?")

    assert run.result == "Answer one.", run.describe()
    main = claude_fake.main_requests()
    assert len(main) == 1, "a Stop hook that prints nothing must not make Claude continue"
    assert "MARKER-123" in request_text(main[0])
    assert "MARKER-123" in turn_text(main[0])
    [stop] = records(stops)
    assert stop["hook_event_name"] == "Stop"
    assert stop["session_id"] == run.session_id
    assert stop["last_assistant_message"] == "Answer one."


def test_tool_use_runs_and_its_result_reaches_the_next_request(
    runner: ClaudeRunner, claude_fake: FakeAnthropicServer
) -> None:
    claude_fake.enqueue(Reply.bash("echo tool-ran > made-by-tool.txt && echo TOOL-OUTPUT-42"), Reply(text="Done."))

    run = runner.run("make a file")

    assert run.result == "Done.", run.describe()
    assert (runner.cwd / "made-by-tool.txt").read_text().strip() == "tool-ran"
    first, second = claude_fake.main_requests()
    assert "TOOL-OUTPUT-42" in turn_text(second)
    assert "TOOL-OUTPUT-42" not in request_text(first)


def test_continue_keeps_the_session(runner: ClaudeRunner, claude_fake: FakeAnthropicServer) -> None:
    claude_fake.enqueue("First answer.", "Second answer.")

    first = runner.run("first prompt FIRST-PROMPT-7")
    second = runner.run("second prompt", continue_session=True)

    assert second.result == "Second answer.", second.describe()
    assert first.session_id and first.session_id == second.session_id
    _, again = claude_fake.main_requests()
    history = request_text(again)
    assert "FIRST-PROMPT-7" in history and "First answer." in history
    assert "FIRST-PROMPT-7" not in turn_text(again)


def test_compact_sends_a_summary_request_and_post_compact_gets_the_summary(
    runner: ClaudeRunner, claude_fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    events = tmp_path / "compact.jsonl"
    record = recording_hook(tmp_path, events)
    runner.write_user_settings(hook_settings({"PreCompact": record, "PostCompact": record}))
    summary = "<analysis>a</analysis>\n<summary>\n1. Primary Request and Intent: SUMMARY-XYZ-99\n</summary>"
    claude_fake.enqueue("Before compaction.")
    claude_fake.enqueue_compact_summary(summary)

    first = runner.run("something worth keeping KEEP-ME-5")
    compacted = runner.run("/compact", continue_session=True)

    assert compacted.session_id == first.session_id, compacted.describe()
    [compact] = claude_fake.compact_requests()
    assert "KEEP-ME-5" in request_text(compact)
    assert len(claude_fake.main_requests()) == 1, "the compaction is not a turn of the main loop"
    by_event = {r["hook_event_name"]: r for r in records(events)}
    assert by_event["PreCompact"]["trigger"] == "manual"
    assert "SUMMARY-XYZ-99" in by_event["PostCompact"]["compact_summary"]
    assert by_event["PostCompact"]["compact_summary"].strip() == summary

    claude_fake.enqueue("After compaction.")
    after = runner.run("and now?", continue_session=True)
    assert after.result == "After compaction."
    assert "SUMMARY-XYZ-99" in request_text(claude_fake.main_requests()[-1])
