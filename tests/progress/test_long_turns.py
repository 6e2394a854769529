"""A long turn keeps its early work: "commit, then review everything" with the commit first and
81 routine calls after it (80 reads, one edit). The importance choice sees every operation of
the turn, so the commit is among the 8 kept observations, through the generic protocol and
through Claude Code's transcript."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cli.hooks.adapters import parse_event
from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent
from memory_core.capture.intake import canonical_origin
from memory_core.capture.learning_log import read_entries
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.hooks import claude_data
from tests.hooks.support import write_records

NOW = 1_750_000_000.0
REQUEST = "commit the checkout-service changes, then review every module"
READS = 80


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


def calls(repo: Path) -> list[tuple[str, dict[str, Any], str]]:
    """``(tool, input, output)`` of the turn: the commit first, then the routine calls."""
    turn = [("Bash", {"command": f'git -C {repo} commit -am "Checkout changes"'}, "[main 1a2b3c4] Checkout changes")]
    turn += [
        ("Read", {"file_path": f"{repo}/src/module_{i}.py"}, f"def handler_{i}():\n    return {i}\n")
        for i in range(READS)
    ]
    turn.append(
        ("Edit", {"file_path": f"{repo}/README.md", "old_string": "a", "new_string": "b"}, "The file was updated.")
    )
    return turn


def progress_text(home: Path) -> str:
    with Store.open(home) as store:
        [(body,)] = store.conn.execute("SELECT body FROM sources WHERE source_type='progress'").fetchall()
    return str(json.loads(body)["text"])


def assert_the_commit_is_kept(home: Path) -> None:
    text = progress_text(home)
    assert "git -C" in text and "commit -am" in text and "[main 1a2b3c4]" in text
    [decision] = [d for d in read_entries(home, 1)[0]["decisions"] if d["source_type"] == "progress"]
    assert decision["reason"] == "captured"
    assert decision["observations"] == 8 and decision["omitted"] == READS + 2 - 8  # chosen among all 82


def capture(home: Path, event: HookEvent) -> None:
    handle_event(event, home, NOW)


def test_a_commit_before_eighty_reads_is_kept_through_the_generic_protocol(home: Path, repo: Path) -> None:
    payload = {
        "schema": "memevo.hook/v1",
        "event": "turn_end",
        "session_id": "long-turn",
        "cwd": str(repo),
        "user_messages": [REQUEST],
        "operations": [
            {"tool": tool, "input": given, "output": output, "call_id": f"c{i}", "result_id": f"c{i}"}
            for i, (tool, given, output) in enumerate(calls(repo))
        ],
        "final_message": "Committed and reviewed.",
    }
    [event] = parse_event(None, payload, "turn_end", home=home, now=NOW).events
    capture(home, event)
    assert_the_commit_is_kept(home)


def test_a_commit_before_eighty_reads_is_kept_through_a_claude_code_transcript(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    turn_id = claude_data.TURN_BASH
    items = claude_data.records_until(turn_id)
    start = next(i for i, r in enumerate(items) if r["type"] == "user" and r.get("promptId") == turn_id)
    use = next(
        r for r in items[start:] if r["type"] == "assistant" and r["message"]["content"][0]["type"] == "tool_use"
    )
    result = next(r for r in items[start:] if isinstance(r.get("toolUseResult"), dict))
    records = [*items[:start], claude_data.user_record(REQUEST, turn_id)]
    for i, (tool, given, output) in enumerate(calls(repo)):
        call, answer = copy.deepcopy(use), copy.deepcopy(result)
        call["message"]["id"] = f"msg_long_{i}"
        call["message"]["content"][0].update(id=f"toolu_long_{i}", name=tool, input=given)
        answer["message"]["content"][0].update(tool_use_id=f"toolu_long_{i}", content=output)
        records += [call, answer]
    records.append(claude_data.assistant_record("Committed and reviewed.", message_id="msg_long_end"))
    transcript = write_records(tmp_path / "long.jsonl", records)
    stop = claude_data.payload("turn2-bash.Stop.1", transcript, cwd=str(repo), last_assistant_message=None)
    [event] = parse_event("claude-code", stop, None, home=home, now=NOW).events
    assert event.event == "turn_end" and len(event.operations) == READS + 2
    capture(home, event)
    assert_the_commit_is_kept(home)
