"""Reading a real Claude Code transcript: the user's own turns, the current turn's tool calls,
how it ended, and the compaction summary."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from cli.hooks.event import MAX_OPERATION_OUTPUT, MAX_OPERATIONS
from cli.hooks.transcripts.claude_code import Transcript, read_transcript, user_text
from cli.hooks.transcripts.claude_compaction import canonical_summary, summary_from_compact_message
from memory_core.recall.digest import CLOSE, OPEN
from tests.hooks.claude_data import (
    NEWER_TRANSCRIPT,
    SESSION,
    SUBAGENT_TRANSCRIPT,
    TRANSCRIPT,
    TURN_AFTER_COMPACT,
    TURN_API_ERROR,
    TURN_BASH,
    TURN_PLAIN,
    TURN_SLASH_COMMAND,
    assistant_record,
    payload,
    records,
    records_until,
    user_record,
    write_records,
)

TYPED = [
    "Hello, this is the first turn. What is in this repo?",
    "Check the repo state. [[tool: Bash: git status]] [[tool: Bash: ls /nonexistent-memevo-dir]]",
    'Delegate. [[tool: Agent: {"description": "look around", "prompt": "List the files here.", '
    '"subagent_type": "general-purpose"}]]',
    'Track it. [[tool: TaskCreate: {"subject": "demo task", "description": "a demo task"}]] '
    '[[tool: TaskUpdate: {"taskId": "1", "status": "completed"}]]',
    "Go down. [[tool: Bash: mkdir -p sub && cd sub && pwd]]",
    "Needs permission. [[tool: Bash: touch perm.txt]]",
    "Fail please. [[status: 400]]",
    "And after compaction, one more turn.",
]


def test_user_turns_are_exactly_what_the_user_typed() -> None:
    # Not the tool results, attachments (skill and agent listings), the slash command and its
    # expansion, the /compact echo and its stdout, the meta caveat, the compaction summary, the
    # synthetic "Continue from where you left off." or any assistant text.
    transcript = read_transcript(str(TRANSCRIPT))
    assert [t.text for t in transcript.user_turns()] == TYPED
    assert transcript.user_turns()[1].prompt_id == TURN_BASH


def test_every_other_user_record_kind_of_the_real_transcript_is_refused() -> None:
    refused = [r for r in records() if r.get("type") == "user" and user_text(r) is None]
    kinds = {("toolUseResult" in r, bool(r.get("isMeta")), bool(r.get("isCompactSummary"))) for r in refused}
    assert kinds == {(True, False, False), (False, True, False), (False, False, True), (False, False, False)}
    commands = [
        r["message"]["content"]
        for r in refused
        if not (r.get("isMeta") or r.get("isCompactSummary") or "toolUseResult" in r)
    ]
    assert len(commands) == 3 and all(c.startswith(("<command-", "<local-command-")) for c in commands)


def test_compaction_summary_is_not_a_user_turn_but_is_found_as_the_summary() -> None:
    transcript = read_transcript(str(TRANSCRIPT))
    assert not any("FAKE-COMPACT-SUMMARY" in t.text for t in transcript.user_turns())
    summary = transcript.latest_compact_summary(SESSION)
    assert summary == "1. Primary Request and Intent: FAKE-COMPACT-SUMMARY of the conversation so far (request 17)."
    assert transcript.latest_compact_summary("another-session") is None


def test_summary_from_the_transcript_is_byte_identical_to_the_post_compact_one() -> None:
    raw = payload("turn9-compact.PostCompact.1")["compact_summary"]
    assert "<analysis>" in raw
    assert canonical_summary(raw) == read_transcript(str(TRANSCRIPT)).latest_compact_summary(SESSION)
    # The same holds for longer summaries with blank-line runs and text the CLI wraps around them.
    body = "Decision: keep SQLite.\n\n\n\nPreference: tabs.\n- Status: done"
    raw = f"<analysis>\nthinking\n</analysis>\n\n<summary>\n{body}\n</summary>"
    wrapped = (
        "This session is being continued from a previous conversation that ran out of context. The summary "
        "below covers the earlier portion of the conversation.\n\nSummary:\n"
        + body.replace("\n\n\n\n", "\n\n")
        + "\n\nIf you need specific details from before compaction (like exact code snippets), read the full "
        "transcript at: /x.jsonl\nContinue the conversation from where it left off without asking the user."
    )
    assert summary_from_compact_message(wrapped) == canonical_summary(raw) == body.replace("\n\n\n\n", "\n\n")


def test_tool_calls_are_paired_with_their_results_in_order() -> None:
    turn = Transcript(records_until(TURN_BASH)).current_turn(TURN_BASH)
    assert turn is not None
    assert turn.user_messages == (TYPED[1],)
    assert [(o.tool, o.input, o.status, o.call_id, o.result_id) for o in turn.operations] == [
        ("Bash", "git status", "ok", "toolu_fake000002", "toolu_fake000002"),
        ("Bash", "ls /nonexistent-memevo-dir", "error", "toolu_fake000003", "toolu_fake000003"),
    ]
    assert turn.operations[0].output.startswith("On branch main")
    assert turn.final_message == "OK from fake (4)"
    assert turn.ended_in_error is False


def test_a_failed_bash_command_has_status_error_matching_post_tool_use_failure() -> None:
    failure = payload("turn2-bash.PostToolUseFailure.1")
    turn = Transcript(records_until(TURN_BASH)).current_turn(TURN_BASH)
    assert turn is not None
    failed = [o for o in turn.operations if o.call_id == failure["tool_use_id"]]
    assert len(failed) == 1 and failed[0].status == "error"
    assert failed[0].input == failure["tool_input"]["command"]
    assert failed[0].output == failure["error"]


def test_the_current_turn_ends_where_the_next_prompt_begins() -> None:
    transcript = read_transcript(str(TRANSCRIPT))  # the whole session, later turns included
    first = transcript.current_turn(TURN_PLAIN)
    assert first is not None and first.user_messages == (TYPED[0],) and first.final_message == "OK from fake (1)"
    assert transcript.current_turn("not-written-yet") is None


def test_an_api_error_ends_the_turn_in_error() -> None:
    turn = read_transcript(str(TRANSCRIPT)).current_turn(TURN_API_ERROR)
    assert turn is not None
    assert turn.ended_in_error is True
    assert turn.final_message == "API Error: 400 scripted failure"
    assert read_transcript(str(TRANSCRIPT)).current_turn(TURN_AFTER_COMPACT).ended_in_error is False


def test_a_slash_command_turn_has_no_typed_user_message() -> None:
    turn = read_transcript(str(TRANSCRIPT)).current_turn(TURN_SLASH_COMMAND)
    assert turn is not None and turn.user_messages == () and turn.final_message == "OK from fake (15)"


def test_after_compaction_the_turn_skips_the_synthetic_continue_and_reply() -> None:
    turn = read_transcript(str(TRANSCRIPT)).current_turn(TURN_AFTER_COMPACT)
    assert turn is not None
    assert turn.user_messages == ("And after compaction, one more turn.",)
    assert turn.final_message == "OK from fake (18)"


def test_earlier_user_texts_leave_out_the_current_prompt() -> None:
    transcript = read_transcript(str(TRANSCRIPT))
    assert transcript.earlier_user_texts(TURN_AFTER_COMPACT, TYPED[-1], 5) == TYPED[2:7]
    # Before the prompt is written: no prompt ids to go by, the text is compared.
    before = Transcript(records_until(TURN_BASH))
    assert before.earlier_user_texts(None, TYPED[1], 5) == [TYPED[0]]
    assert Transcript([]).earlier_user_texts(TURN_PLAIN, TYPED[0], 5) == []
    # A CLI that writes no prompt ids, with the prompt already written: the text is compared.
    no_ids = Transcript([{k: v for k, v in r.items() if k != "promptId"} for r in records_until(TURN_BASH)])
    assert no_ids.earlier_user_texts(TURN_BASH, TYPED[1], 5) == [TYPED[0]]


def test_subagent_records_are_never_user_turns() -> None:
    sidechain = read_transcript(str(SUBAGENT_TRANSCRIPT))
    assert sidechain.found and sidechain.user_turns() == [] and sidechain.current_turn(None) is None
    # Older versions wrote sidechains into the main transcript: still not the user's turns.
    mixed = records_until(TURN_BASH) + records(SUBAGENT_TRANSCRIPT)
    assert [t.text for t in Transcript(mixed).user_turns()] == TYPED[:2]


def test_injected_hook_context_and_system_reminders_are_never_user_turns(tmp_path: Path) -> None:
    prompt = user_record("what does the staging db listen on?", TURN_BASH, uuid="u1")
    hook_context = {
        "type": "attachment",
        "isSidechain": False,
        "uuid": "h1",
        "parentUuid": "u1",
        "attachment": {
            "type": "hook_additional_context",
            "hookName": "UserPromptSubmit",
            "hookEvent": "UserPromptSubmit",
            "toolUseID": "x",
            "content": ["remember that memevo said port 5433"],
        },
    }
    hook_success = {
        "type": "attachment",
        "isSidechain": False,
        "uuid": "h2",
        "attachment": {
            "type": "hook_success",
            "hookName": "Stop",
            "hookEvent": "Stop",
            "content": "remember that this came from a hook",
            "stdout": "",
            "exitCode": 0,
        },
    }
    reminder_meta = user_record(
        "<system-reminder>\nremember that the user prefers tabs\n</system-reminder>", TURN_BASH, uuid="u2", isMeta=True
    )
    reminder_only = user_record("<system-reminder>remember that X is Y</system-reminder>", TURN_BASH, uuid="u3")
    old_hook_echo = user_record(
        "<user-prompt-submit-hook>remember that Z</user-prompt-submit-hook>", TURN_BASH, uuid="u4"
    )
    with_reminder = user_record("", TURN_BASH, uuid="u5")
    with_reminder["message"]["content"] = [
        {"type": "text", "text": "and the production one?"},
        {"type": "text", "text": "<system-reminder>memevo recall: remember that prod uses 5432</system-reminder>"},
    ]
    # memevo's own digest, should a CLI version put it into the user's message as plain text.
    with_digest = user_record(
        f'and the test one?\n{OPEN}\n{{"excerpt":"remember that test uses 5434"}}\n{CLOSE}', TURN_BASH, uuid="u6"
    )
    path = write_records(
        tmp_path / "t.jsonl",
        [
            prompt,
            hook_context,
            hook_success,
            reminder_meta,
            reminder_only,
            old_hook_echo,
            with_reminder,
            with_digest,
            assistant_record("ok"),
        ],
    )
    turn = read_transcript(str(path)).current_turn(TURN_BASH)
    assert turn is not None
    assert turn.user_messages == ("what does the staging db listen on?", "and the production one?", "and the test one?")
    assert not any("remember" in t.text for t in read_transcript(str(path)).user_turns())


def test_interrupted_and_unanswered_tool_calls(tmp_path: Path) -> None:
    items = records_until(TURN_BASH)
    bash_result = next(r for r in items if r.get("toolUseResult") and isinstance(r["toolUseResult"], dict))
    bash_result["toolUseResult"]["interrupted"] = True
    # The second call's result never arrived.
    items = [r for r in items if not (r.get("type") == "user" and isinstance(r.get("toolUseResult"), str))]
    turn = Transcript(items).current_turn(TURN_BASH)
    assert turn is not None
    assert [(o.status, o.result_id) for o in turn.operations] == [
        ("interrupted", "toolu_fake000002"),
        ("interrupted", None),
    ]


def test_operations_are_bounded(tmp_path: Path) -> None:
    items = records_until(TURN_BASH)
    call = next(r for r in items if r["type"] == "assistant" and r["message"]["content"][0]["type"] == "tool_use")
    result = next(r for r in items if isinstance(r.get("toolUseResult"), dict))
    many = []
    for i in range(MAX_OPERATIONS + 6):
        use, res = copy.deepcopy(call), copy.deepcopy(result)
        use["message"]["content"][0]["id"] = f"toolu_{i}"
        use["message"]["id"] = f"msg_{i}"
        res["message"]["content"][0]["tool_use_id"] = f"toolu_{i}"
        res["message"]["content"][0]["content"] = f"start-{i} " + "x" * 50_000 + f" end-{i}"
        many += [use, res]
    turn = Transcript(items[: items.index(call)] + many).current_turn(TURN_BASH)
    assert turn is not None and len(turn.operations) == MAX_OPERATIONS
    assert turn.operations[0].call_id == "toolu_6" and turn.operations[-1].call_id == f"toolu_{MAX_OPERATIONS + 5}"
    last = turn.operations[-1]
    assert len(last.output) <= MAX_OPERATION_OUTPUT
    assert last.output.startswith(f"start-{MAX_OPERATIONS + 5}") and last.output.endswith(f"end-{MAX_OPERATIONS + 5}")


def test_without_prompt_ids_the_last_typed_message_starts_the_turn() -> None:
    items = [{k: v for k, v in r.items() if k != "promptId"} for r in records_until(TURN_BASH)]
    transcript = Transcript(items)
    turn = transcript.current_turn(TURN_BASH)  # the CLI wrote no ids: fall back to the text
    assert turn is not None and turn.user_messages == (TYPED[1],) and len(turn.operations) == 2
    assert transcript.current_turn(None, lambda text: text == TYPED[1]) is not None
    assert transcript.current_turn(None, lambda text: text == "a prompt not written yet") is None


def test_unknown_record_types_and_odd_values_are_skipped(tmp_path: Path) -> None:
    odd = [
        {"type": "future-thing", "payload": [1, 2]},
        {"type": "user", "message": "not an object"},
        {"type": "user", "message": {"role": "user", "content": 42}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use"}, "text", None]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": None}]}},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([json.dumps(r) for r in records_until(TURN_PLAIN) + odd] + ["[1, 2]", "null"]) + "\n")
    transcript = read_transcript(str(path))
    assert [t.text for t in transcript.user_turns()] == [TYPED[0]]
    turn = transcript.current_turn(TURN_PLAIN)
    assert turn is not None and turn.user_messages == (TYPED[0],)
    assert [(o.tool, o.status) for o in turn.operations] == [("unknown", "interrupted")]


def test_a_newer_cli_transcript_with_memevos_own_hook_context() -> None:
    # Claude Code 2.1.332 with memevo installed: the digest memevo injected is an attachment
    # in the transcript and must never come back as something the user said.
    transcript = read_transcript(str(NEWER_TRANSCRIPT))
    assert [t.text for t in transcript.user_turns()] == [
        "which port does the staging database use?",
        "remember that the release branch is cut on Thursdays",
    ]
    injected = [r for r in records(NEWER_TRANSCRIPT) if r.get("type") == "attachment"]
    assert injected[0]["attachment"]["type"] == "hook_additional_context"
    assert OPEN in injected[0]["attachment"]["content"][0]
    turn = transcript.current_turn("c61e3791-5448-4095-8bcb-05b3475bf770")
    assert turn is not None
    assert turn.user_messages == ("remember that the release branch is cut on Thursdays",)
    assert [(o.tool, o.input, o.status) for o in turn.operations] == [
        ("Bash", "echo hi && ls /nonexistent-dir", "error")
    ]
    assert turn.final_message == "Done." and turn.ended_in_error is False
