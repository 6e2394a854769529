"""One malformed earlier message costs nothing but itself: a generic-protocol prompt whose
history holds an object, a number or null is still answered (a real ``memevo hook``
process), and the hook log names what was dropped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.store.database import Store
from tests.factories import make_memory, seed
from tests.hooks.support import hook_process
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
