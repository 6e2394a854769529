"""`memevo hook --agent pi` as memevo's Pi extension runs it: a real process, a real payload on stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.recall.digest import MAX_DIGEST_BYTES
from tests.hooks.pi_data import SESSION, SESSION_FILE, event_of, payload
from tests.hooks.support import hook_process, sources


def prompt_payload(prompt: str) -> dict:
    data = payload("extension.before_agent_start.first", session_file=str(SESSION_FILE))
    event_of(data)["prompt"] = prompt
    return data


def test_before_agent_start_prints_the_digest_as_plain_text(home: Path, seeded: str) -> None:
    db_before = (home / "memory.db").read_bytes()
    result = hook_process(prompt_payload("which port does the staging database use?"), "--agent", "pi")
    assert result.returncode == 0 and result.stderr == b""
    digest = result.stdout.decode("utf-8")
    assert digest.startswith("<memevo-recall>") and digest.endswith("</memevo-recall>\n")
    assert seeded in digest and "5433" in digest
    assert len(digest.strip().encode("utf-8")) <= MAX_DIGEST_BYTES
    assert (home / "memory.db").read_bytes() == db_before  # recall is read-only


def test_before_agent_start_prints_nothing_without_a_match_or_memory(home: Path, seeded: str) -> None:
    result = hook_process(prompt_payload("hello there"), "--agent", "pi")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    fresh = hook_process(
        prompt_payload("which port does the staging database use?"),
        "--agent",
        "pi",
        env={"MEMEVO_HOME": str(home.parent / "never-used")},
    )
    assert (fresh.returncode, fresh.stdout, fresh.stderr) == (0, b"", b"")


def test_agent_end_captures_a_remember_that_turn_once_and_prints_nothing(home: Path) -> None:
    data = payload("extension.agent_end.statement")
    for _ in range(2):  # the same run sent twice is captured once
        result = hook_process(data, "--agent", "pi")
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert sources(home) == [
        (
            "user_statement",
            "pi",
            SESSION,
            "/home/user/project",
            "Remember that the staging database listens on port 5433.",
        )
    ]


def test_detected_without_agent_flag(home: Path) -> None:
    result = hook_process(payload("extension.agent_end.statement"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert [s[1] for s in sources(home)] == ["pi"]


def test_session_compact_captures_the_summary_and_its_labelled_lines(home: Path) -> None:
    result = hook_process(payload("extension.session_compact"), "--agent", "pi")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    [(kind, agent, session, origin, text)] = sources(home)
    assert (kind, agent, session) == ("summary", "pi", SESSION)
    assert "Decision: billing moves to Postgres 16." in text


@pytest.mark.parametrize("name", ["extension.session_start", "extension.session_shutdown", "tool_call", "input"])
def test_other_events_print_nothing(home: Path, name: str) -> None:
    result = hook_process(payload(name), "--agent", "pi")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert sources(home) == []


def test_bad_input_fails_open_with_one_line(home: Path) -> None:
    data = payload("agent_end")
    event_of(data)["messages"] = "oops"
    result = hook_process(data, "--agent", "pi")
    assert result.returncode == 0 and result.stdout == b""
    assert result.stderr.decode().count("\n") == 1 and "event.messages" in result.stderr.decode()
    garbage = hook_process("not json", "--agent", "pi")
    assert garbage.returncode == 0 and garbage.stdout == b""


def test_pi_hooks_stay_light(home: Path) -> None:
    """Recall before each prompt and capture after each run load no validation library."""
    from memory_core.store.engines.database import Store
    from tests.integration.test_hot_paths import loaded_heavy_modules

    Store.open(home).close()
    statement = json.dumps(payload("extension.agent_end.statement"))
    assert loaded_heavy_modules(home, ["hook", "--agent", "pi"], statement) == []
    assert [s[0] for s in sources(home)] == ["user_statement"]
    prompt = json.dumps(prompt_payload("which port does the staging database use?"))
    assert loaded_heavy_modules(home, ["hook", "--agent", "pi"], prompt) == []
