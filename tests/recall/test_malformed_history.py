"""One malformed earlier message costs nothing but itself: a generic-protocol prompt whose
history holds an object, a number or null, or a native agent's prompt whose transcript
holds such a user message, is still answered (a real ``memevo hook`` process), and the hook
log says what was dropped."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.hooks import claude_data, codex_data, gemini_data
from tests.hooks.support import hook_process, write_records
from tests.support.hook_gateway import gateway_for

pytestmark = pytest.mark.slow

CLAIM = "The staging PostgreSQL database listens on port 5433"


@pytest.fixture(autouse=True)
def gateway(home: Path, backend: str, tmp_path: Path) -> Iterator[None]:
    with Store.open(home) as store:
        seed(store, make_memory(CLAIM, origin="/work/app", at=clock.now() - 3600))
    with gateway_for(home, backend, tmp_path / "serve.log"):
        yield


@pytest.mark.parametrize("malformed", [{"text": "hi"}, 42, None, ["a"]], ids=["object", "number", "null", "list"])
def test_a_malformed_earlier_message_is_dropped_and_the_question_answered(home: Path, malformed: object) -> None:
    payload = {
        "schema": "memevo.hook/v1",
        "session_id": "s",
        "cwd": "/work/app",
        "user_messages": ["hello", malformed],
        "prompt": "which port does the staging database listen on?",
    }
    result = hook_process(json.dumps(payload), "user_prompt")
    assert result.returncode == 0 and result.stderr == b""
    assert "5433" in result.stdout.decode()  # the current question is answered
    log = (home / "logs" / "hooks.log").read_text()
    assert "user_prompt: user_messages[1]" in log and "dropped: not a string" in log


# -- each native adapter's history: a malformed earlier user message in the transcript --------

MALFORMED = [{"text": "hi"}, 42, None]
QUESTION = "which port does the staging database listen on?"


def answered_and_logged(home: Path, data: dict) -> None:
    result = hook_process(data)
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert "5433" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    log = (home / "logs" / "hooks.log").read_text()
    assert "user_prompt: 1 earlier user message(s) of the transcript dropped: not text" in log


@pytest.mark.parametrize("malformed", MALFORMED, ids=["object", "number", "null"])
def test_claude_code_drops_a_malformed_earlier_message(home: Path, tmp_path: Path, malformed: object) -> None:
    broken = claude_data.user_record("placeholder", claude_data.TURN_PLAIN, uuid="u-broken")
    broken["message"]["content"] = malformed
    items = [*claude_data.records_until(claude_data.TURN_PLAIN), broken]
    transcript = write_records(tmp_path / "claude.jsonl", items)
    answered_and_logged(
        home, claude_data.payload("turn2-bash.UserPromptSubmit.1", transcript, cwd="/work/app", prompt=QUESTION)
    )


@pytest.mark.parametrize("malformed", MALFORMED, ids=["object", "number", "null"])
def test_codex_drops_a_malformed_earlier_message(home: Path, tmp_path: Path, malformed: object) -> None:
    opening = codex_data.user_turn("placeholder", codex_data.TURN_TOOLS)
    for record in opening:
        if record["type"] == "event_msg" and record["payload"].get("type") == "item_completed":
            record["payload"]["item"]["content"] = malformed
    items = [*codex_data.records_until(codex_data.TURN_TOOLS, through=False), *opening]
    transcript = write_records(tmp_path / "rollout-broken.jsonl", items)
    data = codex_data.memevo_payload("UserPromptSubmit", None, transcript, cwd="/work/app", prompt=QUESTION)
    data["turn_id"] = "turn-after-the-broken-one"
    answered_and_logged(home, data)


@pytest.mark.parametrize("malformed", MALFORMED[:2], ids=["object", "number"])
def test_gemini_drops_a_malformed_earlier_message(home: Path, tmp_path: Path, malformed: object) -> None:
    items = gemini_data.records()
    template = next(r for r in items if r.get("type") == "user" and isinstance(r.get("displayContent"), list))
    broken = copy.deepcopy(template)
    broken.update(id="user-broken", displayContent=malformed, content=malformed)
    transcript = write_records(tmp_path / "session-broken.jsonl", [*items, broken])
    answered_and_logged(home, gemini_data.payload("BeforeAgent", transcript, cwd="/work/app", prompt=QUESTION))
