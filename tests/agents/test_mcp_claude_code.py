"""memevo's MCP server in the real Claude Code CLI: `memevo install claude-code` registers it,
`claude mcp list` shows it connected, and a turn whose model calls
``mcp__memevo__memory_recall`` gets the stored claim back in its tool result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.helpers import CLAIM, memevo_as_user, seed_claim
from tests.agents.mcp_support import agent_cli, runner_elsewhere, server_entry
from tests.mcp.support import store_state
from tests.support.agent_clis import ClaudeRunner
from tests.support.fake_anthropic import FakeAnthropicServer, Reply, request_text
from tests.support.memevo_worker import MEMEVO_BIN

pytestmark = pytest.mark.slow


def test_install_registers_a_connected_server_whose_recall_reaches_the_model(
    claude_bin: Path, claude_fake: FakeAnthropicServer, user_home: Path, home: Path, tmp_path: Path
) -> None:
    seed_claim(home, tmp_path)
    memevo_as_user(user_home, home, "install", "claude-code", "--scope", "user")
    server = json.loads((user_home / ".claude.json").read_text())["mcpServers"]["memevo"]
    assert server == {"type": "stdio", **server_entry(home)}
    before = store_state(home)
    runner = runner_elsewhere(ClaudeRunner, claude_fake.base_url, claude_bin, user_home, tmp_path)

    listed = agent_cli(runner, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    [line] = [line for line in listed.stdout.splitlines() if line.startswith("memevo:")]
    assert f"{MEMEVO_BIN} mcp" in line and "Connected" in line, listed.stdout

    claude_fake.enqueue(
        Reply.tool_use("mcp__memevo__memory_recall", {"query": "staging database port"}),
        "It listens on port 5433, per memevo.",
    )
    run = runner.run("Look up the staging database port in memevo.")

    assert run.result == "It listens on port 5433, per memevo.", run.describe()
    first, second = claude_fake.main_requests()
    # Claude Code offers MCP tools as deferred tools, named in a reminder beside the prompt.
    offered = request_text(first, include_system=True) + json.dumps(first.body["tools"])
    for name in ("memory_recall", "memory_get", "memory_explain"):
        assert f"mcp__memevo__{name}" in offered
    [result] = [
        block
        for block in second.messages[-1]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    text = json.dumps(result["content"], ensure_ascii=False)
    assert result.get("is_error") is not True and CLAIM in text and "<memevo-recall>" in text, text
    assert CLAIM not in request_text(first)  # only the tool brought it
    assert store_state(home) == before  # the lookup wrote nothing

    memevo_as_user(user_home, home, "uninstall", "claude-code", "--scope", "user")
    after = agent_cli(runner, "mcp", "list")
    assert "memevo:" not in after.stdout, after.stdout
