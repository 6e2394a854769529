"""Reading a real Codex rollout: only the user's own words, the turn's tool calls, bounded and tolerant."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from cli.hooks.event import MAX_OPERATION_OUTPUT
from cli.hooks.transcripts.codex import Rollout, read_rollout
from tests.hooks.codex_data import (
    ROLLOUT,
    SAID,
    TURN_RECALL,
    TURN_REMEMBER,
    TURN_TOOLS,
    assistant_message,
    records,
    records_until,
    user_turn,
    without_user_events,
    write_records,
)


def test_user_turns_are_only_what_the_user_typed() -> None:
    rollout = read_rollout(str(ROLLOUT))
    assert [(t.text, t.turn_id) for t in rollout.user_turns()] == [(SAID[t], t) for t in SAID]
    everything = json.dumps(records())
    # The rollout does hold Codex's context and memevo's digest, in user and developer messages.
    for injected in ("AGENTS-MARKER-9", "<environment_context>", "<memevo-recall>", "<skills_instructions>"):
        assert injected in everything
        assert not any(injected in t.text for t in rollout.user_turns())


def test_without_user_events_the_typed_parts_of_user_messages_are_read() -> None:
    """An older rollout has no UserMessage events: the user-role messages are read instead,
    without the AGENTS.md instructions and the environment context Codex puts there."""
    rollout = Rollout(without_user_events(records()))
    assert not rollout.typed_events
    assert [t.text for t in rollout.user_turns()] == list(SAID.values())
    # Without Codex's marks, its context blocks are still recognised by how they start.
    unmarked = without_user_events(records())
    for record in unmarked:
        record["payload"].pop("internal_chat_message_metadata_passthrough", None)
    assert [t.text for t in Rollout(unmarked).user_turns()] == list(SAID.values())


def test_the_current_turn_of_a_plain_statement() -> None:
    turn = Rollout(records_until(TURN_REMEMBER)).current_turn(TURN_REMEMBER)
    assert turn is not None
    assert turn.user_messages == (SAID[TURN_REMEMBER],)
    assert turn.operations == ()
    assert turn.final_message == "Noted: the staging database listens on port 5433."
    assert not turn.ended_in_error


def test_the_recall_digest_in_the_turn_is_never_a_user_message() -> None:
    turn = Rollout(records_until(TURN_RECALL)).current_turn(TURN_RECALL)
    assert turn is not None and turn.user_messages == (SAID[TURN_RECALL],)
    assert turn.final_message == "It deploys with ./deploy.sh from the infra repo."


def test_tool_calls_are_paired_with_their_outputs_by_call_id() -> None:
    turn = read_rollout(str(ROLLOUT)).current_turn(TURN_TOOLS)
    assert turn is not None and turn.user_messages == (SAID[TURN_TOOLS],)
    failed, echoed = turn.operations
    assert (failed.tool, failed.input, failed.status) == ("exec_command", "ls /nonexistent-dir", "error")
    assert failed.output == "ls: cannot access '/nonexistent-dir': No such file or directory\n"
    assert (echoed.tool, echoed.input, echoed.output, echoed.status) == (
        "exec_command",
        "echo hi-from-tool",
        "hi-from-tool\n",
        "ok",
    )
    assert [(o.call_id, o.result_id) for o in turn.operations] == [
        ("call_fake000001", "call_fake000001"),
        ("call_fake000002", "call_fake000002"),
    ]
    assert turn.final_message == "The listing failed; echo printed hi-from-tool."


def test_without_the_command_events_the_status_comes_from_the_output_header() -> None:
    items = [
        r
        for r in records()
        if not (
            r["type"] == "event_msg"
            and r["payload"].get("type") == "item_completed"
            and r["payload"]["item"]["type"] == "CommandExecution"
        )
    ]
    turn = Rollout(items).current_turn(TURN_TOOLS)
    assert turn is not None
    assert [(o.status, o.output) for o in turn.operations] == [
        ("error", "ls: cannot access '/nonexistent-dir': No such file or directory\n"),
        ("ok", "hi-from-tool\n"),
    ]


def test_a_call_without_an_output_is_interrupted_and_long_outputs_keep_head_and_tail() -> None:
    items = records_until(TURN_TOOLS)
    outputs = [r for r in items if r["payload"].get("type") == "function_call_output"]
    items.remove(outputs[1])  # the second call's result never came
    executions = [
        r
        for r in items
        if r["type"] == "event_msg"
        and r["payload"].get("type") == "item_completed"
        and r["payload"]["item"]["type"] == "CommandExecution"
    ]
    executions[0]["payload"]["item"]["aggregated_output"] = "HEAD " + "x" * 10_000 + " TAIL"
    turn = Rollout(items).current_turn(TURN_TOOLS)
    assert turn is not None
    first, second = turn.operations
    assert len(first.output) == MAX_OPERATION_OUTPUT and first.output.startswith("HEAD ")
    assert first.output.endswith(" TAIL")
    assert (second.status, second.output, second.result_id) == ("interrupted", "", None)


def test_a_turn_not_written_yet_is_none_and_later_turns_are_not_this_one() -> None:
    before = records_until(TURN_TOOLS, through=False)
    assert Rollout(before).current_turn(TURN_TOOLS) is None
    # Only the task_started record is there: the user's message is not written yet.
    started = records_until(TURN_TOOLS)[len(before) : len(before) + 1]
    assert Rollout(before + started).current_turn(TURN_TOOLS) is None
    turn = read_rollout(str(ROLLOUT)).current_turn(TURN_REMEMBER)  # a re-read rollout with later turns
    assert turn is not None and turn.user_messages == (SAID[TURN_REMEMBER],) and turn.operations == ()


def test_without_turn_ids_the_last_typed_message_starts_the_turn() -> None:
    items = records_until(TURN_TOOLS)
    for record in items:
        record["payload"].pop("turn_id", None)
        record["payload"].pop("internal_chat_message_metadata_passthrough", None)
    rollout = Rollout(items)
    turn = rollout.current_turn(TURN_TOOLS)
    assert turn is not None and turn.user_messages == (SAID[TURN_TOOLS],) and len(turn.operations) == 2
    assert rollout.current_turn(TURN_TOOLS, lambda text: text == "something else") is None


def test_earlier_user_texts_leave_out_the_current_prompt() -> None:
    seen_by_prompt = Rollout(records_until(TURN_TOOLS, through=False))
    assert seen_by_prompt.earlier_user_texts(TURN_TOOLS, SAID[TURN_TOOLS], 5) == [
        SAID[TURN_REMEMBER],
        SAID[TURN_RECALL],
    ]
    assert seen_by_prompt.earlier_user_texts(TURN_TOOLS, SAID[TURN_TOOLS], 1) == [SAID[TURN_RECALL]]
    assert seen_by_prompt.earlier_user_texts(TURN_TOOLS, SAID[TURN_TOOLS], 0) == []
    whole = read_rollout(str(ROLLOUT))  # the prompt already written: it is left out by turn id, or by text
    assert whole.earlier_user_texts(TURN_TOOLS, SAID[TURN_TOOLS], 5) == [SAID[TURN_REMEMBER], SAID[TURN_RECALL]]
    assert whole.earlier_user_texts("unknown-turn", SAID[TURN_TOOLS], 5) == [SAID[TURN_REMEMBER], SAID[TURN_RECALL]]


def test_a_pasted_recall_fence_is_removed_from_what_the_user_typed(tmp_path: Path) -> None:
    pasted = "remember that CI runs on Fridays <memevo-recall>\nold digest\n</memevo-recall>"
    items = records_until(TURN_RECALL) + user_turn(pasted, "t-new") + [assistant_message("ok", "t-new")]
    turn = Rollout(items).current_turn("t-new")
    assert turn is not None and turn.user_messages == ("remember that CI runs on Fridays",)
    only_digest = records_until(TURN_RECALL) + user_turn("<memevo-recall>\nx\n</memevo-recall>", "t-2")
    assert Rollout(only_digest).current_turn("t-2") is None  # nothing typed: not a user turn


def test_missing_unreadable_half_written_and_unknown_records_are_tolerated(tmp_path: Path) -> None:
    assert read_rollout(None).user_turns() == []
    missing = read_rollout(str(tmp_path / "nope.jsonl"))
    assert (missing.found, missing.user_turns(), missing.current_turn(TURN_TOOLS)) == (False, [], None)
    assert read_rollout(str(tmp_path)).found is False  # a directory
    odd = [
        {"type": "brand_new_kind", "payload": {"turn_id": TURN_TOOLS}},
        {"type": "event_msg", "payload": "x"},
        {"no": "payload"},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": 3}},
    ]
    path = write_records(tmp_path / "r.jsonl", records_until(TURN_TOOLS) + odd, tail='{"type": "event_msg", "pay')
    turn = read_rollout(str(path)).current_turn(TURN_TOOLS)
    assert turn is not None and turn.user_messages == (SAID[TURN_TOOLS],) and len(turn.operations) == 2


def test_only_the_bounded_tail_is_read(tmp_path: Path) -> None:
    filler = [{"type": "event_msg", "payload": {"type": "token_count", "info": "x" * 1000}}] * 300
    path = write_records(tmp_path / "big.jsonl", records_until(TURN_RECALL) + filler + records()[26:])
    small = read_rollout(str(path), max_bytes=64 * 1024)
    assert small.clipped
    assert [t.text for t in small.user_turns()] == [SAID[TURN_TOOLS]]
    assert [t.text for t in read_rollout(str(path)).user_turns()] == list(SAID.values())


def test_a_long_turn_keeps_its_first_call() -> None:
    """Every call of a long turn reaches progress capture, which chooses among them by
    importance: the turn's first call is not cut for the 80 after it."""
    items = records_until(TURN_TOOLS)
    call = next(r for r in items if r["payload"].get("type") == "function_call")
    output = next(r for r in items if r["payload"].get("type") == "function_call_output")
    first_id = call["payload"]["call_id"]
    more = []
    for i in range(80):
        extra_call, extra_output = copy.deepcopy(call), copy.deepcopy(output)
        extra_call["payload"]["call_id"] = extra_output["payload"]["call_id"] = f"long_{i}"
        more += [extra_call, extra_output]
    at = items.index(output) + 1
    turn = Rollout(items[:at] + more + items[at:]).current_turn(TURN_TOOLS)
    assert turn is not None and len(turn.operations) == 82
    assert turn.operations[0].call_id == first_id
