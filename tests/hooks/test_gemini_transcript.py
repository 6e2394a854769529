"""Reading a real Gemini CLI 0.61 chat transcript: replay, the user's own turns, the current turn."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from cli.hooks.event import MAX_OPERATIONS
from cli.hooks.transcripts.gemini import Transcript, read_transcript, replay, strip_injected, user_text
from memory_core.recall.digest import CLOSE, OPEN
from tests.hooks.gemini_data import TRANSCRIPT, cut_transcript, records, session_hooks, write_records

TYPED = [
    "Please run the checks and write out.txt",
    "What does @notes.txt say about the port?",
    "from now on use pnpm, then run echo partial",
    "I prefer tabs over spaces.",
]


def lines_at(event: str, index: int) -> int:
    found = [n for p, n in session_hooks() if p["hook_event_name"] == event]
    value = found[index]
    assert value is not None
    return value


def test_user_turns_are_only_what_the_user_typed() -> None:
    transcript = read_transcript(str(TRANSCRIPT))
    assert transcript.found and not transcript.clipped
    texts = [t.text for t in transcript.user_turns()]
    # Not the session context, hook context (memevo's digest included), tool results, the
    # content of @notes.txt or the slash command. The first prompt is gone because the CLI
    # itself drops it on --resume (another hook's SessionStart context made it start with
    # <hook_context>): memevo sees the conversation the CLI keeps.
    assert texts == TYPED
    everything = json.dumps([t.text for t in transcript.user_turns()])
    for leaked in (
        "session_context",
        "hook_context",
        "memevo-recall",
        "Recalled memory",
        "deploy notes",
        "hi-from-tool",
        "/about",
    ):
        assert leaked not in everything


def test_the_raw_file_really_holds_what_is_left_out() -> None:
    raw = TRANSCRIPT.read_text(encoding="utf-8")
    for injected in (
        "<session_context>",
        "<hook_context>&lt;memevo-recall&gt;",
        "Content from referenced files",
        "functionResponse",
        "/about remember that",
    ):
        assert injected in raw


def test_replay_follows_set_messages_and_rewritten_records() -> None:
    all_records = records()
    messages = replay(all_records)
    ids = [m["id"] for m in messages]
    assert len(ids) == len(set(ids))
    # The last $set.messages (written by the last --resume) replaced everything before it.
    last_set = max(i for i, r in enumerate(all_records) if isinstance(r.get("$set", {}).get("messages"), list))
    history = [m["id"] for m in all_records[last_set]["$set"]["messages"]]
    assert ids[: len(history)] == history
    appended = [r["id"] for r in all_records[last_set + 1 :] if "id" in r]
    assert ids[len(history) :] == list(dict.fromkeys(appended))


def test_a_message_written_again_keeps_its_place_and_takes_the_new_content() -> None:
    first = {"id": "a", "type": "gemini", "content": "one"}
    other = {"id": "b", "type": "user", "content": [{"text": "hello"}]}
    again = {**first, "content": "two", "toolCalls": [{"id": "c1", "name": "x"}]}
    assert replay([first, other, again]) == [again, other]


def test_rewind_drops_the_message_and_everything_after_it() -> None:
    msgs = [{"id": str(i), "type": "user", "content": [{"text": f"m{i}"}]} for i in range(4)]
    assert [m["id"] for m in replay([*msgs, {"$rewindTo": "2"}])] == ["0", "1"]
    assert replay([*msgs, {"$rewindTo": "unknown"}]) == []  # as the CLI does
    assert [m["id"] for m in replay([*msgs, {"$rewindTo": "1"}, msgs[3]])] == ["0", "3"]


@pytest.mark.parametrize(
    ("index", "typed", "final"),
    [
        (
            0,
            "Remember that the staging database listens on port 5433.",
            "Noted: the staging database listens on port 5433.",
        ),
        (2, "What does @notes.txt say about the port?", "It is in notes.txt."),
        (4, "I prefer tabs over spaces.", "Sure."),
    ],
)
def test_current_turn_at_each_after_agent(tmp_path: Path, index: int, typed: str, final: str) -> None:
    payload = [p for p, _ in session_hooks() if p["hook_event_name"] == "AfterAgent"][index]
    transcript = Transcript(records(lines_at("AfterAgent", index)))
    turn = transcript.current_turn(payload["prompt"])
    assert turn is not None
    assert turn.user_messages == (typed,)
    assert (turn.operations, turn.final_message, turn.ended_in_error) == ((), final, False)


def test_the_tool_turn_pairs_calls_with_results(tmp_path: Path) -> None:
    transcript = Transcript(records(lines_at("AfterAgent", 1)))
    turn = transcript.current_turn("Please run the checks and write out.txt")
    assert turn is not None
    assert turn.user_messages == ("Please run the checks and write out.txt",)
    assert turn.final_message == "Tests ran; one command failed."
    echo, ls, write = turn.operations
    assert (echo.tool, echo.input, echo.status) == ("run_shell_command", "echo hi-from-tool", "ok")
    assert echo.output.startswith("Output: hi-from-tool") and "untrusted_context" not in echo.output
    assert (ls.input, ls.status) == ("ls /nonexistent-dir", "error")  # "Exit Code: 2" in its result
    assert "No such file or directory" in ls.output
    assert write.tool == "write_file" and write.status == "ok"
    assert json.loads(write.input) == {"file_path": "/home/user/project/out.txt", "content": "done\n"}
    for operation in turn.operations:
        assert operation.call_id and operation.result_id == operation.call_id


def test_the_same_turn_rewritten_in_api_form_reads_the_same(tmp_path: Path) -> None:
    """On --resume the CLI writes the history again in API form: tool calls as functionCall
    parts, results as functionResponse parts of user messages, no toolCalls."""
    before_next_prompt = lines_at("BeforeAgent", 2)
    rewritten = Transcript(records(before_next_prompt))
    recorded = Transcript(records(lines_at("AfterAgent", 1)))
    tool_turn = [m for m in rewritten.messages if m.get("type") == "gemini"]
    assert not any(m.get("toolCalls") for m in tool_turn)
    prompt = "Please run the checks and write out.txt"
    assert rewritten.current_turn(prompt) == recorded.current_turn(prompt)


def test_current_turn_is_none_when_the_transcript_lacks_the_prompt() -> None:
    at_before_agent = Transcript(records(lines_at("BeforeAgent", 5)))
    assert at_before_agent.current_turn("I prefer tabs over spaces.") is None
    assert Transcript([]).current_turn("anything") is None
    assert at_before_agent.current_turn("Please run the checks and write out.txt") is None  # not the last one


def test_the_api_error_turn_has_no_final_message() -> None:
    """The model API failed after one tool call; the CLI exited without AfterAgent. Read at
    the next prompt, that turn holds the call and no reply."""
    transcript = Transcript(records(lines_at("BeforeAgent", 4)))
    turn = transcript.current_turn("from now on use pnpm, then run echo partial")
    assert turn is not None
    assert turn.final_message is None
    [call] = turn.operations
    assert (call.input, call.status) == ("echo partial", "ok")


def test_earlier_user_texts_leave_out_the_prompt_if_already_written() -> None:
    transcript = Transcript(records(lines_at("AfterAgent", 4)))
    assert transcript.earlier_user_texts("I prefer tabs over spaces.", 5) == TYPED[:3]
    assert transcript.earlier_user_texts("something new", 2) == TYPED[2:]
    assert transcript.earlier_user_texts("something new", 0) == []


def test_injected_context_is_stripped_wherever_it_is() -> None:
    digest = f"{OPEN}\nRecalled: the staging database listens on port 5433.\n{CLOSE}"
    assert strip_injected(f"<hook_context>{digest}</hook_context>\n\nremember that X") == "remember that X"
    assert strip_injected(f"remember that X\n{digest}") == "remember that X"
    assert strip_injected("<hook_context>never closed remember that Y") == ""
    assert (
        strip_injected("see @a.txt\n--- Content from referenced files ---\nremember that Z\n--- End of content ---")
        == "see @a.txt"
    )
    message = {
        "id": "u",
        "type": "user",
        "content": [{"text": "<hook_context>&lt;memevo-recall&gt;x&lt;/memevo-recall&gt;</hook_context>"}],
    }
    assert user_text(message) is None


@pytest.mark.parametrize(
    "text",
    [
        "/memory add remember that X",
        "?help",
        "<state_snapshot>remember that X",
        "   ",
        "<session_context>\nx\n</session_context>",
    ],
)
def test_messages_the_cli_itself_leaves_out_are_not_user_turns(text: str) -> None:
    assert user_text({"id": "u", "type": "user", "content": [{"text": text}]}) is None


def test_display_content_is_preferred_and_tool_results_are_not_user_text() -> None:
    message = {
        "id": "u",
        "type": "user",
        "content": [{"text": "expanded prompt"}],
        "displayContent": [{"text": "typed prompt"}],
    }
    assert user_text(message) == "typed prompt"
    assert user_text({**message, "displayContent": []}) == "expanded prompt"
    result = {"id": "r", "type": "user", "content": [{"functionResponse": {"id": "c", "response": {"output": "x"}}}]}
    assert user_text(result) is None
    for kind in ("gemini", "info", "error", "warning", None):
        assert user_text({**message, "type": kind}) is None


def test_tool_status_cancelled_missing_and_errors(tmp_path: Path) -> None:
    template = next(r for r in records(lines_at("AfterAgent", 1)) if r.get("toolCalls"))
    call = template["toolCalls"][0]
    cancelled = {**copy.deepcopy(call), "id": "c-cancel", "status": "cancelled"}
    pending = {**copy.deepcopy(call), "id": "c-pending", "status": "executing", "result": None}
    failed = {
        **copy.deepcopy(call),
        "id": "c-fail",
        "status": "error",
        "result": [{"functionResponse": {"id": "c-fail", "name": call["name"], "response": {"error": "boom"}}}],
    }
    in_dir = {**copy.deepcopy(call), "id": "c-dir", "args": {"command": "make", "dir_path": "/home/user/project/sub"}}
    message = {**template, "toolCalls": [cancelled, pending, failed, in_dir]}
    user = {"id": "u", "type": "user", "content": [{"text": "do it"}]}
    turn = Transcript([user, message]).current_turn("do it")
    assert turn is not None
    assert [(o.call_id, o.status) for o in turn.operations] == [
        ("c-cancel", "interrupted"),
        ("c-pending", "interrupted"),
        ("c-fail", "error"),
        ("c-dir", "ok"),
    ]
    assert turn.operations[1].result_id is None and turn.operations[2].output == "boom"
    assert json.loads(turn.operations[3].input) == {"command": "make", "cwd": "/home/user/project/sub"}


def test_only_the_last_operations_are_kept() -> None:
    template = next(r for r in records(lines_at("AfterAgent", 1)) if r.get("toolCalls"))
    calls = [{**copy.deepcopy(template["toolCalls"][0]), "id": f"c{i}"} for i in range(MAX_OPERATIONS + 5)]
    user = {"id": "u", "type": "user", "content": "go"}
    turn = Transcript([user, {**template, "toolCalls": calls}]).current_turn("go")
    assert turn is not None and len(turn.operations) == MAX_OPERATIONS
    assert turn.operations[0].call_id == "c5"


def test_an_error_message_after_the_last_reply_marks_the_turn() -> None:
    user = {"id": "u", "type": "user", "content": "go"}
    reply = {"id": "g", "type": "gemini", "content": "partial answer"}
    error = {"id": "e", "type": "error", "content": "API error"}
    turn = Transcript([user, reply, error]).current_turn("go")
    assert turn is not None and turn.ended_in_error and turn.final_message == "partial answer"
    later = Transcript([user, error, reply]).current_turn("go")
    assert later is not None and not later.ended_in_error


def test_tolerates_missing_half_written_and_foreign_lines(tmp_path: Path) -> None:
    missing = read_transcript(str(tmp_path / "nope.jsonl"))
    assert (missing.found, missing.messages) == (False, [])
    assert read_transcript(None).messages == []
    path = cut_transcript(tmp_path / "t.jsonl", lines_at("AfterAgent", 4))
    whole = read_transcript(str(path)).messages
    with path.open("a", encoding="utf-8") as out:
        out.write('[1, 2]\n"text"\nnot json\n{"type": "future-record", "x": 1}\n{"id": 5}\n{"id": "half", "type": "us')
    assert read_transcript(str(path)).messages == whole


def test_a_clipped_window_reads_what_it_holds(tmp_path: Path) -> None:
    path = cut_transcript(tmp_path / "t.jsonl", lines_at("AfterAgent", 4))
    size = path.stat().st_size
    last_lines = "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[-4:])
    clipped = read_transcript(str(path), max_bytes=len(last_lines.encode()) + 10)
    assert clipped.clipped and size > len(last_lines)
    turn = clipped.current_turn("I prefer tabs over spaces.")
    assert turn is not None and turn.user_messages == ("I prefer tabs over spaces.",)


def test_write_records_round_trip(tmp_path: Path) -> None:
    path = write_records(tmp_path / "t.jsonl", records(lines_at("AfterAgent", 0)))
    assert read_transcript(str(path)).messages == Transcript(records(lines_at("AfterAgent", 0))).messages


def test_a_long_turn_keeps_its_first_call() -> None:
    template = next(r for r in records(lines_at("AfterAgent", 1)) if r.get("toolCalls"))
    calls = [{**copy.deepcopy(template["toolCalls"][0]), "id": f"c{i}"} for i in range(82)]
    user = {"id": "u", "type": "user", "content": "go"}
    turn = Transcript([user, {**template, "toolCalls": calls}]).current_turn("go")
    assert turn is not None and [o.call_id for o in turn.operations] == [f"c{i}" for i in range(82)]
