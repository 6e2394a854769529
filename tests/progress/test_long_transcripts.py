"""A turn longer than any window: "commit, then read everything" where the reads push the
transcript far past 4 MB. The turn-end hook (a real ``memevo hook`` process) finds the
turn's start from the end and streams it, so the commit at its start is still evidence,
for Claude Code's transcript, Codex's rollout and Gemini CLI's chat alike; a turn with more
operations than a turn can hand on keeps the most important, and `memevo learning` says
what was left out and why."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core.capture.intake import canonical_origin
from memory_core.capture.learning_log import read_entries
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.hooks import claude_data, codex_data, gemini_data
from tests.hooks.support import hook_process, write_records
from tests.support.hook_gateway import gateway_for
from tests.support.processes import memevo_process

pytestmark = pytest.mark.slow

NOW = 1_750_000_000.0
REQUEST = "commit the checkout-service changes, then review every module"
READ_BYTES = 80 * 1024
READS = 60  # 60 reads of 80 KB: 4.8 MB of the turn after its commit
COMMIT_OUTPUT = "[main 1a2b3c4] Checkout changes"


@pytest.fixture(autouse=True)
def gateway(home: Path, backend: str, tmp_path: Path) -> Iterator[None]:
    """On PostgreSQL every hook goes through ``memevo serve``: it runs beside the tests."""
    with gateway_for(home, backend, tmp_path / "serve.log"):
        yield


@pytest.fixture
def repo(tmp_path: Path, store: Store) -> Path:
    checkout = tmp_path / "checkout-service"
    (checkout / ".git").mkdir(parents=True)
    state = make_memory(
        "checkout-service: the changes are not committed yet",
        origin=canonical_origin(str(checkout)),
        kind="project_state",
        at=NOW - 3600,
    )
    seed(store, state)
    return checkout


def work(repo: Path, reads: int = READS, read_bytes: int = READ_BYTES) -> list[tuple[str, str, str]]:
    """``(shell command, output)`` pairs as ``(kind, command, output)``: the commit first, then reads."""
    body = "x = 1\n" * (read_bytes // 6)
    turn = [("commit", f'git -C {repo} commit -am "Checkout changes"', COMMIT_OUTPUT)]
    turn += [("read", f"cat {repo}/src/module_{i}.py", body) for i in range(reads)]
    return turn


def progress_text(home: Path) -> str:
    with Store.open(home) as store:
        rows = store.conn.execute("SELECT body FROM sources WHERE source_type='progress'").fetchall()
    assert len(rows) == 1, rows
    return str(json.loads(rows[0][0])["text"])


def assert_the_commit_is_kept(home: Path, transcript: Path) -> None:
    assert transcript.stat().st_size > 4 * 1024 * 1024
    text = progress_text(home)
    assert "commit -am" in text and COMMIT_OUTPUT in text
    [entry] = read_entries(home, 1)
    [decision] = [d for d in entry["decisions"] if d["source_type"] == "progress"]
    assert decision["reason"] == "captured"
    assert decision["observations"] == 8


def run_stop(data: dict[str, Any]) -> None:
    result = hook_process(data)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), result.stderr


# -- Claude Code ---------------------------------------------------------------------------------


def claude_transcript(path: Path, calls: list[tuple[str, str, str]]) -> Path:
    turn_id = claude_data.TURN_BASH
    items = claude_data.records_until(turn_id)
    start = next(i for i, r in enumerate(items) if r["type"] == "user" and r.get("promptId") == turn_id)
    use = next(
        r for r in items[start:] if r["type"] == "assistant" and r["message"]["content"][0]["type"] == "tool_use"
    )
    answer_template = next(r for r in items[start:] if isinstance(r.get("toolUseResult"), dict))
    records = [*items[:start], claude_data.user_record(REQUEST, turn_id)]
    for i, (_, command, output) in enumerate(calls):
        call, answer = copy.deepcopy(use), copy.deepcopy(answer_template)
        call["message"]["id"] = f"msg_long_{i}"
        call["message"]["content"][0].update(id=f"toolu_long_{i}", name="Bash", input={"command": command})
        answer["message"]["content"][0].update(tool_use_id=f"toolu_long_{i}", content=output)
        answer["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False}
        records += [call, answer]
    records.append(claude_data.assistant_record("Committed and reviewed.", message_id="msg_long_end"))
    return write_records(path, records)


def claude_stop(transcript: Path, repo: Path) -> dict[str, Any]:
    return claude_data.payload("turn2-bash.Stop.1", transcript, cwd=str(repo), last_assistant_message=None)


def test_a_claude_code_turn_past_4_mb_keeps_its_commit(home: Path, repo: Path, tmp_path: Path) -> None:
    transcript = claude_transcript(tmp_path / "claude.jsonl", work(repo))
    run_stop(claude_stop(transcript, repo))
    assert_the_commit_is_kept(home, transcript)


def test_a_claude_code_turn_whose_start_is_far_back_is_captured(home: Path, repo: Path, tmp_path: Path) -> None:
    # The turn's first record more than 4 MB from the end: before, no user message was found
    # and the turn was captured from nothing (no statement, no progress).
    transcript = claude_transcript(tmp_path / "claude.jsonl", work(repo, reads=120))
    run_stop(claude_stop(transcript, repo))
    assert_the_commit_is_kept(home, transcript)
    [entry] = read_entries(home, 1)
    assert REQUEST[:40] in entry["message"]


def test_a_turn_with_more_operations_than_it_can_hand_on_keeps_the_commit_and_says_so(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    calls = work(repo, reads=4_200, read_bytes=60)
    transcript = claude_transcript(tmp_path / "claude.jsonl", calls)
    run_stop(claude_stop(transcript, repo))
    assert "commit -am" in progress_text(home)
    [entry] = read_entries(home, 1)
    assert entry["reading"] == [
        "105 of 4201 operations left out: a turn keeps its 4096 most important "
        "(commits, pushes and merges first, routine reads last)"
    ]
    shown = memevo_process("learning")
    assert shown.returncode == 0
    assert "read       105 of 4201 operations left out" in shown.stdout


def test_learning_says_when_the_transcript_did_not_hold_the_turn(home: Path, repo: Path, tmp_path: Path) -> None:
    transcript = write_records(tmp_path / "claude.jsonl", claude_data.records_until(claude_data.TURN_PLAIN))
    stop = claude_stop(transcript, repo)
    prompt = claude_data.payload("turn2-bash.UserPromptSubmit.1", transcript, cwd=str(repo), prompt=REQUEST)
    assert hook_process(prompt).returncode == 0
    run_stop(stop)
    [entry] = read_entries(home, 1)
    assert entry["reading"] == ["the transcript did not hold this turn: only the prompt the prompt hook kept was read"]
    assert "the transcript did not hold this turn" in memevo_process("learning").stdout


# -- Codex ---------------------------------------------------------------------------------------


def codex_rollout(path: Path, calls: list[tuple[str, str, str]]) -> Path:
    turn_id = codex_data.TURN_TOOLS
    items = codex_data.records_until(turn_id, through=False)
    tools = [r for r in codex_data.records_until(turn_id) if r not in items]
    call_template = next(r for r in tools if r["payload"].get("type") == "function_call")
    execution_template = next(
        r
        for r in tools
        if r["type"] == "event_msg" and (r["payload"].get("item") or {}).get("type") == "CommandExecution"
    )
    output_template = next(r for r in tools if r["payload"].get("type") == "function_call_output")
    records = [*items, *codex_data.user_turn(REQUEST, turn_id)]
    for i, (_, command, output) in enumerate(calls):
        call, execution, answer = (copy.deepcopy(t) for t in (call_template, execution_template, output_template))
        call_id = f"call_long_{i}"
        call["payload"].update(call_id=call_id, arguments=json.dumps({"cmd": command}))
        execution["payload"]["item"].update(
            id=call_id, command=["/bin/bash", "-lc", command], status="completed", aggregated_output=output, exit_code=0
        )
        answer["payload"].update(
            call_id=call_id,
            output=f"Chunk ID: c{i}\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n{output}",
        )
        records += [call, execution, answer]
    records.append(codex_data.assistant_message("Committed and reviewed.", turn_id))
    return write_records(path, records)


def test_a_codex_turn_past_4_mb_keeps_its_commit(home: Path, repo: Path, tmp_path: Path) -> None:
    transcript = codex_rollout(tmp_path / "rollout-long.jsonl", work(repo, reads=120))
    stop = codex_data.memevo_payload(
        "Stop", codex_data.TURN_TOOLS, transcript, cwd=str(repo), last_assistant_message=None
    )
    run_stop(stop)
    assert_the_commit_is_kept(home, transcript)


# -- Gemini CLI ----------------------------------------------------------------------------------


def gemini_chat(path: Path, calls: list[tuple[str, str, str]]) -> Path:
    items = gemini_data.records()
    start = next(i for i, r in enumerate(items) if r.get("type") == "user" and "Please run the checks" in json.dumps(r))
    template = next(r for r in items[start:] if r.get("type") == "gemini" and r.get("toolCalls"))
    answer_template = next(r for r in items[start:] if r.get("type") == "user" and "functionResponse" in json.dumps(r))
    user = copy.deepcopy(items[start])
    user["content"] = user["displayContent"] = [{"text": REQUEST}]
    records = [*items[:start], user]
    for i, (_, command, output) in enumerate(calls):
        message, answer = copy.deepcopy(template), copy.deepcopy(answer_template)
        call_id = f"run_shell_command_long_{i}"
        response = {"id": call_id, "name": "run_shell_command", "response": {"output": f"Output: {output}"}}
        message["id"], answer["id"] = f"gemini-long-{i}", f"user-long-{i}"
        bare = copy.deepcopy(message)
        del bare["toolCalls"]
        message["toolCalls"][0].update(
            id=call_id, args={"command": command}, status="success", result=[{"functionResponse": response}]
        )
        answer["content"] = [{"functionResponse": response}]
        records += [bare, message, answer]  # as the CLI writes it: the message, again with its calls
    done = copy.deepcopy(template)
    done.pop("toolCalls")
    done.update(id="gemini-long-end", content="Committed and reviewed.")
    records.append(done)
    return write_records(path, records)


def test_a_gemini_turn_past_4_mb_keeps_its_commit(home: Path, repo: Path, tmp_path: Path) -> None:
    transcript = gemini_chat(tmp_path / "session-long.jsonl", work(repo, reads=120))
    after = gemini_data.payload("AfterAgent", transcript, cwd=str(repo), prompt=REQUEST)
    run_stop(after)
    assert_the_commit_is_kept(home, transcript)
