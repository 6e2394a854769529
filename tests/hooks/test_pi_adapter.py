"""Pi's real event objects through the Pi adapter (parse and render), in process."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cli.hooks.adapters import detect_adapter, parse_event
from cli.hooks.adapters import pi as adapter
from cli.hooks.event import HookEvent, Operation
from cli.hooks.transcripts.pi import earlier_user_texts
from memory_core.errors import UsageError
from tests.hooks.pi_data import (
    SESSION,
    SESSION_FILE,
    SHARED_SESSION,
    event_of,
    payload,
    session_entries,
    write_session,
)

PROJECT = "/home/user/project"


def parse(data: dict[str, Any], event_arg: str | None = None) -> tuple[HookEvent, ...]:
    return adapter.parse(data, event_arg, home=Path("/nonexistent"), now=0.0)


def only(data: dict[str, Any], event_arg: str | None = None) -> HookEvent:
    [event] = parse(data, event_arg)
    return event


def test_session_start_from_the_shared_recording() -> None:
    data = payload("session_start.startup")
    event = only(data)
    assert event == HookEvent(
        "session_start", agent="pi", session_id=SHARED_SESSION, cwd=PROJECT, transcript_path=data["session_file"]
    )


def test_before_agent_start_is_a_prompt_with_no_earlier_turns_in_a_fresh_session() -> None:
    event = only(payload("before_agent_start"))  # its session file does not exist here: a fresh session
    assert (event.event, event.prompt, event.user_messages) == ("user_prompt", "hello first turn", ())
    assert (event.agent, event.session_id, event.cwd) == ("pi", SHARED_SESSION, PROJECT)


def test_before_agent_start_reads_earlier_user_messages_from_the_session_file() -> None:
    data = payload("extension.before_agent_start.first", session_file=str(SESSION_FILE))
    event_of(data)["prompt"] = "and which port was it?"
    event = only(data)
    assert event.prompt == "and which port was it?"
    assert event.user_messages == (
        "Remember that the staging database listens on port 5433.",
        "run the tool please",
        "now run a failing command",
    )
    assert event.session_id == SESSION  # the extension sends it; the file name agrees


def test_earlier_messages_follow_the_current_branch_and_skip_injected_text(tmp_path: Path) -> None:
    entries = session_entries()
    by_id = {e.get("id"): e for e in entries}
    # memevo's digest as the custom message Pi stores after a prompt, and a user message that
    # quotes a digest: neither is the user's words.
    custom = {
        "type": "custom_message",
        "customType": "memevo-recall",
        "display": False,
        "id": "c0ffee01",
        "parentId": "247bbb47",
        "content": "<memevo-recall>\nold digest\n</memevo-recall>",
    }
    quoted = dict(by_id["30c5839a"], id="c0ffee02", parentId="c0ffee01")
    quoted["message"] = dict(
        quoted["message"], content=[{"type": "text", "text": "<memevo-recall>x</memevo-recall>\nthanks, that helped"}]
    )
    # /tree back to the first answer: a new branch from a1f73726 abandons turns 2 and 3.
    branch = dict(by_id["4ab139ec"], id="c0ffee03", parentId="a1f73726")
    branch["message"] = dict(branch["message"], content="a different second question")
    path = write_session(tmp_path / "s.jsonl", [*entries, custom, quoted, branch])
    assert earlier_user_texts(str(path), 5) == [
        "Remember that the staging database listens on port 5433.",
        "a different second question",
    ]
    path = write_session(tmp_path / "s.jsonl", [*entries, custom, quoted])
    assert earlier_user_texts(str(path), 5)[-1] == "thanks, that helped"
    assert earlier_user_texts(str(path), 2) == ["now run a failing command", "thanks, that helped"]
    assert earlier_user_texts(str(tmp_path / "missing.jsonl"), 5) == []
    assert earlier_user_texts(None, 5) == []


def test_agent_end_of_a_plain_turn_after_pi_tore_the_session_down() -> None:
    event = only(payload("agent_end"))  # session_file and model are null: read after teardown
    assert event == HookEvent(
        "turn_end",
        agent="pi",
        session_id=None,
        cwd=PROJECT,
        user_messages=("hello first turn",),
        final_message="fake reply 1",
    )


def test_agent_end_pairs_tool_calls_with_their_results() -> None:
    event = only(payload("agent_end.2"))
    assert event.user_messages == ("second turn [[tool: shell: echo hi-from-tool]]",)
    assert event.operations == (Operation("bash", "echo hi-from-tool", "hi-from-tool\n", "ok", "call_2", "call_2"),)
    assert (event.final_message, event.ended_in_error) == ("tool done: hi-from-tool", False)


def test_agent_end_as_the_extension_sends_it() -> None:
    statement = only(payload("extension.agent_end.statement"))
    assert statement.user_messages == ("Remember that the staging database listens on port 5433.",)
    assert (statement.session_id, statement.cwd, statement.operations) == (SESSION, PROJECT, ())
    failed = only(payload("extension.agent_end.failed_tool"))
    assert failed.operations == (
        Operation("bash", "exit 3", "(no output)\n\nCommand exited with code 3", "error", "call_4", "call_4"),
    )
    assert (failed.final_message, failed.ended_in_error) == ("it failed", False)


def test_agent_end_never_learns_memevo_s_injected_message() -> None:
    data = payload("agent_end.with_recall")
    assert [m["role"] for m in event_of(data)["messages"]] == ["user", "custom", "assistant"]
    event = only(data)
    assert event.user_messages == ("We use Postgres 16 for billing.",)
    assert "INJECTED" not in repr(event)


def test_an_aborted_run_ends_in_error_and_keeps_unanswered_calls_as_interrupted() -> None:
    data = payload("agent_end.2")
    messages = event_of(data)["messages"]
    del messages[2:]  # the call was made, no result came
    messages.append(
        {
            **messages[1],
            "content": [{"type": "text", "text": ""}],
            "stopReason": "aborted",
            "errorMessage": "Request was aborted",
        }
    )
    event = only(data)
    assert event.operations == (Operation("bash", "echo hi-from-tool", "", "interrupted", "call_2", None),)
    assert (event.final_message, event.ended_in_error) == (None, True)
    messages[-1]["stopReason"] = "error"
    assert only(data).ended_in_error is True


def test_session_compact_is_a_compaction_with_the_summary() -> None:
    event = only(payload("extension.session_compact"))
    assert event.event == "compaction" and event.session_id == SESSION
    assert event.summary == "Decision: billing moves to Postgres 16.\nThe staging database listens on port 5433."


def test_session_shutdown_is_a_session_end() -> None:
    assert only(payload("session_shutdown.quit")).event == "session_end"
    assert only(payload("extension.session_shutdown")).session_id == SESSION


@pytest.mark.parametrize("name", ["tool_call", "tool_result", "input"])
def test_other_events_are_ignored(name: str) -> None:
    assert parse(payload(name)) == ()


def test_blank_prompt_recalls_nothing() -> None:
    data = payload("before_agent_start")
    event_of(data)["prompt"] = "  "
    assert parse(data) == ()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"event": "agent_end"}, 'needs the event object in "event"'),
        ({"hook_event_name": 5}, '"hook_event_name" (a string)'),
        ({"cwd": 3}, '"cwd"'),
    ],
)
def test_malformed_payloads_are_usage_errors(change: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        parse(payload("agent_end", **change))


def test_wrong_shapes_inside_the_event_are_usage_errors() -> None:
    data = payload("agent_end")
    event_of(data)["messages"] = "not a list"
    with pytest.raises(UsageError, match="event.messages"):
        parse(data)
    data = payload("before_agent_start")
    event_of(data)["prompt"] = None
    with pytest.raises(UsageError, match="event.prompt"):
        parse(data)
    data = payload("extension.session_compact")
    event_of(data)["compactionEntry"]["summary"] = ""
    with pytest.raises(UsageError, match="compactionEntry.summary"):
        parse(data)
    data = payload("agent_end")
    event_of(data)["type"] = "turn_end"
    with pytest.raises(UsageError, match="of type 'turn_end'"):
        parse(data)
    with pytest.raises(UsageError, match="`memevo hook session_start`"):
        parse(payload("agent_end"), "session_start")


def test_event_arg_naming_the_same_event_is_accepted() -> None:
    assert only(payload("agent_end"), "agent_end").event == "turn_end"


def test_render_prints_only_the_digest_as_plain_text() -> None:
    prompt = only(payload("before_agent_start"))
    assert adapter.render(prompt, "<memevo-recall>\nx\n</memevo-recall>") == "<memevo-recall>\nx\n</memevo-recall>"
    assert adapter.render(prompt, "") == ""
    assert adapter.render(only(payload("agent_end")), "anything") == ""


def test_detection_tells_pi_from_claude_code_and_generic() -> None:
    assert detect_adapter(payload("agent_end")) == "pi"
    assert detect_adapter({"hook_event_name": "Stop", "session_id": "s"}) == "claude-code"
    assert detect_adapter({"schema": "memevo.hook/v1", "event": {"type": "x"}}) == "generic"
    parsed = parse_event(None, payload("agent_end"), None, home=Path("/nonexistent"), now=0.0)
    assert parsed.adapter == "pi" and parsed.events[0].event == "turn_end"


def test_a_long_run_keeps_its_first_call() -> None:
    from cli.hooks.transcripts.pi import read_turn

    calls = [
        {"type": "toolCall", "id": f"t{i}", "name": "bash", "arguments": {"command": f"cmd {i}"}} for i in range(82)
    ]
    messages: list[object] = [
        {"role": "user", "content": "commit, then review everything"},
        {"role": "assistant", "content": calls, "stopReason": "toolUse"},
        *({"role": "toolResult", "toolCallId": f"t{i}", "content": "ok", "isError": False} for i in range(82)),
    ]
    turn = read_turn(messages)
    assert [o.call_id for o in turn.operations] == [f"t{i}" for i in range(82)]
