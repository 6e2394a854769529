"""memevo's lookups as native Pi tools: `memevo install pi` writes an extension that registers
``memory_recall``, ``memory_get`` and ``memory_explain``; a Pi turn whose model calls one gets
the stored claim back, and a bad call is a tool error that says what to do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import CLAIM, agent_runner, memevo_as_user, seed_claim
from tests.mcp.support import store_state
from tests.support.fake_openai_chat import ChatReply, FakeOpenAIChatServer
from tests.support.pi_cli import PiRunner

pytestmark = pytest.mark.slow


def tool_messages(request: Any) -> list[dict[str, Any]]:
    return [m for m in request.messages if m.get("role") == "tool"]


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def test_a_pi_turn_calls_memevo_natively(
    pi_bin: Path, pi_fake: FakeOpenAIChatServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    seed_claim(home, tmp_path)
    memevo_as_user(
        user_home, home, "install", "pi", "--scope", "user", PI_CODING_AGENT_DIR=str(user_home / ".pi" / "agent")
    )
    before = store_state(home)
    runner = agent_runner(PiRunner, pi_fake.base_url, pi_bin, user_home, tmp_path / "repo", home, timeout=90)
    pi_fake.enqueue(
        ChatReply.tool_call("memory_recall", {"query": "--staging database port"}),
        ChatReply.tool_call("memory_get", {"id": "not-a-claim-id"}),
        "It listens on port 5433, per memevo.",
    )

    run = runner.run("Look up the staging database port in memevo.")

    assert run.result == "It listens on port 5433, per memevo.", run.describe()
    first, second, third = pi_fake.completion_requests()
    offered = {tool["function"]["name"] for tool in first.body.get("tools", [])}
    assert {"memory_recall", "memory_get", "memory_explain"} <= offered, offered
    [recalled] = tool_messages(second)
    assert CLAIM in text_of(recalled) and "<memevo-recall>" in text_of(recalled), recalled
    refused = tool_messages(third)[-1]
    assert "24 lowercase hex" in text_of(refused) and "Traceback" not in text_of(refused), refused
    assert store_state(home) == before
